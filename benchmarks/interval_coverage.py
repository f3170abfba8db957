"""Coverage of perfcompose's 90 % intervals on data of known laws.

For each law, many synthetic data sets (9 sizes 2^10 ... 2^18, 5 repetitions, log-normal noise)
are fitted with PMNFFitter(max_terms=1) and bootstrapped (fit/uncertainty.py); a point counts as
covered when the true law lies inside the interval there. Composed programs are checked the same
way: each part fitted from its own data set, the program composed with its interval
(compose/interval.py), the true composed law checked at every size. The time per fit with the
bootstrap is set against the fit alone, measured in the same run.

    python benchmarks/interval_coverage.py [--sets 60] [--noise 0.05]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from perfcompose.compose import Composer
from perfcompose.compose.interval import with_interval
from perfcompose.data.experiment import Experiment
from perfcompose.fit import PMNFFitter
from perfcompose.fit.uncertainty import with_uncertainty

XS = np.array([2.0 ** k for k in range(10, 19)])
LAWS = {"nop": lambda x: 5000.0 + 0 * x, "inc": lambda x: 300 + 536.0 * x,
        "qsort": lambda x: 1034.0 * x * np.log2(x)}
PROGRAMS = {"seq(qsort, inc)": lambda x: LAWS["qsort"](x) + LAWS["inc"](x),
            "pipe(inc, qsort)": lambda x: np.maximum(LAWS["inc"](x), LAWS["qsort"](x)),
            "tpool_2(qsort)": lambda x: LAWS["qsort"](x) / 2,
            "seq(inc, nop)": lambda x: LAWS["inc"](x) + LAWS["nop"](x)}


def data(rng: np.random.Generator, law, noise: float, reps: int = 5) -> Experiment:
    pts = [((x,), tuple(law(x) * rng.lognormal(0, noise, reps))) for x in XS]
    return Experiment.single(["x"], pts, metric="time", unit="ns")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=60)
    ap.add_argument("--noise", type=float, default=0.05)
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    fitter = PMNFFitter(max_terms=1)
    print(f"{args.sets} data sets per row, 9 sizes x 5 repetitions, {100 * args.noise:g} % log-normal noise")
    print(f"{'law / program':<20} {'coverage of 90 %':>17} {'median width %':>15} {'right class':>12}")
    fit_time = boot_time = 0.0
    fitted: dict[str, list] = {name: [] for name in LAWS}
    for name, law in LAWS.items():
        inside, widths, right = [], [], 0
        for _ in range(args.sets):
            exp = data(rng, law, args.noise)
            t0 = time.perf_counter()
            model = fitter.fit(exp).model_.with_meta(unit="ns", name=name)
            t1 = time.perf_counter()
            model = with_uncertainty(model, exp)
            t2 = time.perf_counter()
            fit_time, boot_time = fit_time + t1 - t0, boot_time + t2 - t1
            fitted[name].append(model)
            lo, hi = model.interval(x=XS)
            truth = law(XS)
            inside.extend((lo <= truth) & (truth <= hi))
            widths.append(np.median((hi - lo) / truth))
            expected = {"nop": (0, 0), "inc": (1, 0), "qsort": (1, 1)}[name]
            order = model.order("x")
            right += order is not None and (order.i, order.j) == expected
        print(f"{name:<20} {100 * np.mean(inside):>16.1f}% {100 * np.median(widths):>14.2f}% "
              f"{right:>5}/{args.sets}")
    for term, law in PROGRAMS.items():
        inside, widths = [], []
        for k in range(args.sets):
            parts = {name: fitted[name][k] for name in LAWS}
            model = with_interval(Composer(parts, pipe="pointwise"), term)
            lo, hi = model.interval(x=XS)
            truth = law(XS)
            inside.extend((lo <= truth) & (truth <= hi))
            widths.append(np.median((hi - lo) / truth))
        print(f"{term:<20} {100 * np.mean(inside):>16.1f}% {100 * np.median(widths):>14.2f}%")
    n = args.sets * len(LAWS)
    print(f"time per fit: {1e3 * fit_time / n:.1f} ms; bootstrap (200 members) {1e3 * boot_time / n:.1f} ms "
          f"= {boot_time / fit_time:.2f}x the fit (same run)")


if __name__ == "__main__":
    main()
