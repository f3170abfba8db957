"""perfcompose's forecasting methods against R on the same points (R from Debian's r-base-core).

For random point sets (5 to 40 points, smooth runtimes with noise) every method is evaluated at
points inside and beyond the data, in Python and by ``Rscript``; the table gives the largest
relative difference per method. Run: ``python benchmarks/forecast_vs_r.py [--sets 50]``.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from perfcompose.fit.forecast import Lm, LmPoly, Loess, Spline

R_CALLS = {
    "spline (fmm)": "spline(x, y, xout = u)$y",
    "spline (natural)": "spline(x, y, method = 'natural', xout = u)$y",
    "loess": "predict(loess(y ~ x, control = loess.control(surface = 'direct')), data.frame(x = u))",
    "lm(poly(x, 3))": "predict(lm(y ~ poly(x, 3)), data.frame(x = u))",
    "lm": "predict(lm(y ~ x), data.frame(x = u))",
}
PY = {"spline (fmm)": Spline, "spline (natural)": lambda: Spline("natural"), "loess": Loess,
      "lm(poly(x, 3))": LmPoly, "lm": Lm}


def point_sets(count: int, seed: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    sets = []
    for _ in range(count):
        n = int(rng.integers(5, 41))
        x = np.sort(rng.choice(np.arange(10, 100000), n, replace=False).astype(float))
        a, b = rng.uniform(0.1, 2), rng.uniform(1, 2.5)
        y = a * (x / x.max()) ** b * 100 * (1 + rng.normal(0, 0.05, n)) + rng.uniform(0, 5)
        span = x.max() - x.min()
        u = np.concatenate([rng.uniform(x.min(), x.max(), 5), x.max() + span * rng.uniform(0.01, 0.3, 3),
                            x.min() - span * rng.uniform(0.01, 0.1, 2)])
        sets.append((x, y, u))
    return sets


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if not shutil.which("Rscript"):
        print("Rscript not found: apt-get install r-base-core", file=sys.stderr)
        return 2
    sets = point_sets(args.sets, args.seed)
    worst = {name: 0.0 for name in R_CALLS}
    py_time = {name: 0.0 for name in R_CALLS}
    with tempfile.TemporaryDirectory() as tmp:
        script = ["options(digits = 17, warn = -1)"]
        for k, (x, y, u) in enumerate(sets):
            for name, var in (("x", x), ("y", y), ("u", u)):
                np.savetxt(Path(tmp) / f"{name}{k}.txt", var, fmt="%.17g")
            script.append(f"x <- scan('{tmp}/x{k}.txt', quiet=TRUE); y <- scan('{tmp}/y{k}.txt', quiet=TRUE); "
                          f"u <- scan('{tmp}/u{k}.txt', quiet=TRUE)")
            for j, call in enumerate(R_CALLS.values()):
                script.append(f"write(format({call}, digits = 17), '{tmp}/r{k}_{j}.txt', ncolumns = 1)")
        (Path(tmp) / "run.R").write_text("\n".join(script))
        t0 = time.perf_counter()
        subprocess.run(["Rscript", str(Path(tmp) / "run.R")], check=True, capture_output=True)
        r_time = time.perf_counter() - t0
        for k, (x, y, u) in enumerate(sets):
            for j, name in enumerate(R_CALLS):
                ref = np.loadtxt(Path(tmp) / f"r{k}_{j}.txt", ndmin=1)
                t0 = time.perf_counter()
                got = PY[name]().fit(x, y).predict(u)
                py_time[name] += time.perf_counter() - t0
                worst[name] = max(worst[name], float(np.max(np.abs(got - ref) / np.abs(ref))))
    print(f"{len(sets)} random point sets, 10 points each (5 inside, 5 beyond the data); "
          f"R total {r_time:.2f} s incl. start-up")
    print(f"{'method':<18} {'max rel. difference':>20} {'within 1e-9':>12} {'perfcompose [ms/set]':>22}")
    ok = True
    for name in R_CALLS:
        within = worst[name] <= 1e-9
        ok &= within
        print(f"{name:<18} {worst[name]:>20.3e} {str(within):>12} {1e3 * py_time[name] / len(sets):>22.3f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
