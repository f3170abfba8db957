"""How low the median error at 16x can go on the PMNF fitter benchmark (one parameter, 5 and 10 % noise).

    python benchmarks/pmnf_bayes_bound.py BENCH_DIR SEED_DIR [--prior generic] [--shrink 1] [--lead]

The Bayes estimator of the benchmark: laws drawn from a prior (a class, factors, the shares of
the value at the largest point each term contributes), every one weighted by the likelihood of a
data set's means (relative Gaussian noise from the repetitions, the scale integrated out), and
the posterior median of the prediction at 16x (``--shrink 1``: weights divided by the prediction,
as perfcompose's consensus). ``--prior generator`` is the generator's own (5 / 50 / 45 % constant,
one-term, two-term; shares as it draws them); ``generic`` a third each and uniform shares;
``--no-two-term`` leaves two-term laws out. SEED_DIR holds one seed's ``datasets.json`` and the
``results`` of ``compare_extrap.sh`` or ``extrap_seeds.py``; both fitters' medians are printed
beside the estimator's, on the same data sets.

``--lead`` asks instead how often the lead term can be named exactly: the estimator names the
lead term of the greatest posterior mass (a constant law has none), at 1, 5 and 10 % noise, and
the pooled one-parameter figure of ``compare_extrap.sh`` (noise-free data sets counted exact, as
the fitter finds them) is printed as a difference to Extra-P's.
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

NOISE = (0.05, 0.1)


def prior_shapes(rng: np.random.Generator, factors: list, dominates, xs: np.ndarray, draws: int, prior: str,
                 two_term: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """log g at the points ``xs`` and at 16x their largest, for ``draws`` laws of the prior, and
    the index in ``factors`` of each law's lead term (-1: constant); g is a law divided by its
    value at the largest point."""
    generic = prior == "generic"
    classes = ([1 / 3, 1 / 3, 1 / 3] if two_term else [0.5, 0.5, 0.0]) if generic else [0.05, 0.5, 0.45]
    cls = rng.choice(3, size=draws, p=classes)
    s0 = rng.uniform(0.0, 1.0, draws) if generic else rng.uniform(0.02, 0.5, draws)
    at = np.append(xs, xs[-1] * 16)
    T = np.array([[x ** float(i) * np.log2(x) ** j for x in at] for i, j in factors])
    T /= T[:, len(xs) - 1:len(xs)]
    g = np.ones((draws, len(at)))
    lead = np.full(draws, -1)
    one = np.flatnonzero(cls == 1)
    fi = rng.integers(0, len(factors), len(one))
    g[one] = s0[one, None] + (1 - s0[one, None]) * T[fi]
    lead[one] = fi
    two = np.flatnonzero(cls == 2)
    if len(two):
        leads = [k for k, f in enumerate(factors) if any(dominates((f,), (h,)) for h in factors)]
        lower = {k: [m for m, h in enumerate(factors) if dominates((factors[k],), (h,))] for k in leads}
        a = np.array([leads[k] for k in rng.integers(0, len(leads), len(two))])
        r = rng.uniform(0.0, 1.0, len(two)) if generic else rng.uniform(0.5, 0.95, len(two))
        b = np.array([lower[k][rng.integers(len(lower[k]))] for k in a])
        s = s0[two][:, None]
        g[two] = s + (1 - s) * r[:, None] * T[a] + (1 - s) * (1 - r[:, None]) * T[b]
        lead[two] = a
    lg = np.log(g)
    return lg[:, :-1], lg[:, -1], lead


def posterior(values: np.ndarray, lg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The likelihood weight of every drawn law for one data set's repetitions, and the log of
    the scale that fits the law to the data best."""
    ybar = values.mean(axis=1)
    s = np.sqrt(np.mean(values.var(axis=1, ddof=1) / ybar ** 2) / values.shape[1])
    rr = np.log(ybar)[None, :] - lg
    rbar = rr.mean(axis=1)
    lw = -((rr - rbar[:, None]) ** 2).sum(axis=1) / (2 * s * s)
    return np.exp(lw - lw.max()), rbar


def estimate(values: np.ndarray, lg: np.ndarray, lgf: np.ndarray, shrink: float) -> float:
    """The posterior median of the prediction at 16x for one data set's repetitions."""
    w, rbar = posterior(values, lg)
    pred = rbar + lgf
    w = w * np.exp(-shrink * (pred - pred[np.argmax(w)]))
    order = np.argsort(pred)
    cum = np.cumsum(w[order])
    return float(np.exp(pred[order][np.searchsorted(cum, 0.5 * cum[-1])]))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bench", type=Path, help="the benchmark folder (bench/fit)")
    ap.add_argument("seed_dir", type=Path, help="one seed's folder: datasets.json and results/")
    ap.add_argument("--prior", choices=("generator", "generic"), default="generator")
    ap.add_argument("--shrink", type=float, default=0.0, help="weights divided by prediction^shrink")
    ap.add_argument("--no-two-term", action="store_true", help="leave two-term laws out of the prior")
    ap.add_argument("--lead", action="store_true", help="how often the lead term is named exactly, not the error")
    ap.add_argument("--draws", type=int, default=200_000, help="laws drawn per suite (default: %(default)s)")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(args.bench.resolve()))
    import gen_data
    from bench_io import read_datasets
    from pmnf import dominates

    datasets, _ = read_datasets(args.seed_dir / "datasets.json")
    results = {name: list(csv.DictReader(path.open()))
               for name, path in (("Extra-P", args.seed_dir / "results" / "extrap_default_results.csv"),
                                  ("perfcompose", args.seed_dir / "results" / "perfcompose_results.csv"))
               if path.exists()}
    rng = np.random.default_rng(123)
    shapes = {}
    for suite in ("sp_small", "sp_large"):
        xs = np.array(gen_data.SUITES[suite].points[:, 0], float)
        shapes[suite] = prior_shapes(rng, list(gen_data.FACTORS), dominates, xs, args.draws, args.prior,
                                     not args.no_two_term)
    what = (f"{args.prior} prior, shrink {args.shrink:g}{', no two-term laws' if args.no_two_term else ''}")
    if args.lead:
        Console().print(lead_table([d for d in datasets if d.suite in shapes], shapes, list(gen_data.FACTORS),
                                   results, what))
    else:
        Console().print(median_table([d for d in datasets if d.suite in shapes], shapes, results, args.shrink,
                                     what))


def median_table(datasets: list, shapes: dict, results: dict, shrink: float, what: str) -> Table:
    """Median error at 16x by noise level: the estimator's beside the fitters' results."""
    errs = {name: {r["id"]: float(r["err_x16"]) for r in rows} for name, rows in results.items()}
    errors: dict[float, list[tuple[float, ...]]] = {}
    for d in datasets:
        if d.noise not in NOISE:
            continue
        lg, lgf, _ = shapes[d.suite]
        truth = next(e.true for e in d.eval_points if e.label == "x16")
        err = abs(estimate(np.asarray(d.measurements.values, float), lg, lgf, shrink) - truth) / truth
        errors.setdefault(d.noise, []).append((err, *(r[d.id] for r in errs.values())))
    names = ["Bayes", *errs]
    table = Table(title=f"median error at 16x, one parameter, data sets above 100 % in brackets ({what})",
                  title_justify="left")
    for col in ("noise", *names):
        table.add_column(col, justify="right")
    for noise, rows in sorted(errors.items()):
        e = np.array(rows)
        table.add_row(f"{noise:.0%}", *(f"{np.median(e[:, k]):.3f} ({int(np.sum(e[:, k] > 1))})"
                                        for k in range(len(names))))
    return table


def lead_table(datasets: list, shapes: dict, factors: list, results: dict, what: str) -> Table:
    """Lead term named exactly, % by noise level, and pooled over the noise levels as
    ``compare_extrap.sh`` pools them, the noise-free data sets counted exact for the estimator."""
    hits = {name: {r["id"]: r["lead_match"] == "True" for r in rows} for name, rows in results.items()}
    found: dict[float, list[tuple[bool, ...]]] = {}
    for d in datasets:
        if d.noise == 0:
            found.setdefault(0.0, []).append((True, *(h[d.id] for h in hits.values())))
            continue
        lg, _, lead = shapes[d.suite]
        w, _ = posterior(np.asarray(d.measurements.values, float), lg)
        k = int(np.argmax(np.bincount(lead + 1, weights=w, minlength=len(factors) + 1))) - 1
        named = frozenset() if k < 0 else frozenset({(factors[k],)})
        found.setdefault(d.noise, []).append((named == d.truth_lead, *(h[d.id] for h in hits.values())))
    names = ["Bayes", *hits]
    table = Table(title=f"lead term exact %, one parameter ({what})", title_justify="left")
    for col in ("noise", *names):
        table.add_column(col, justify="right")
    for noise, rows in sorted(found.items()):
        table.add_row(f"{noise:.0%}", *(f"{100 * np.mean(np.array(rows)[:, k]):.1f}" for k in range(len(names))))
    pooled = 100 * np.mean(np.array([r for rows in found.values() for r in rows]), axis=0)
    table.add_row("pooled", *(f"{v:.2f}" for v in pooled))
    if "Extra-P" in hits:
        base = pooled[names.index("Extra-P")]
        table.add_row("vs Extra-P", *(f"{v - base:+.2f}" for v in pooled))
    return table

if __name__ == "__main__":
    main()
