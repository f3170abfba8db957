"""Models per second of perfcompose's PMNF fitter, against a plain least-squares fitter.

The anchor fits the same hypotheses (constant, every one-term and two-term PMNF hypothesis for
one parameter; additive and multiplicative combinations for two) one at a time with
``numpy.linalg.lstsq`` and picks the smallest relative residual: what a straightforward
implementation does. Both run here, on the same generated data, in the same process.

    python benchmarks/fit_speed.py [--sets 200] [--seed 1]
"""
from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
from rich.console import Console
from rich.table import Table

from perfcompose.fit import PMNFFitter
from perfcompose.fit.hypotheses import factor_values, factors


def generate(rng: np.random.Generator, d: int, n_sets: int, noise: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """Random PMNF ground truths on Extra-P-like point sets, 5 repetitions per point."""
    fs = factors()
    out = []
    for _ in range(n_sets):
        if d == 1:
            X = (4.0 * 2.0 ** np.arange(5))[:, None]
        else:
            X = np.array([(p, q) for p in (4.0, 8, 16, 32, 64) for q in (10.0, 20, 40, 80, 160)])
        y = np.full(len(X), rng.uniform(1, 10))
        for k in range(d):
            i, j = fs[rng.integers(len(fs))]
            y = y + rng.uniform(0.1, 2) * X[:, k] ** float(i) * np.log2(X[:, k]) ** float(j)
        values = y[:, None] * (1 + noise * rng.standard_normal((len(X), 5)))
        out.append((X, np.abs(values)))
    return out


def lstsq_anchor(X: np.ndarray, values: np.ndarray) -> tuple:
    """One numpy.linalg.lstsq call per hypothesis; the smallest relative RSS wins."""
    y = values.mean(axis=1)
    fs = factors()
    d = X.shape[1]
    cols = [factor_values(X[:, k], fs) for k in range(d)]
    designs = [np.ones((len(y), 1))]
    if d == 1:
        F = cols[0]
        designs += [np.column_stack([np.ones(len(y)), F[:, a]]) for a in range(len(fs))]
        designs += [np.column_stack([np.ones(len(y)), F[:, a], F[:, b]])
                    for a, b in itertools.combinations(range(len(fs)), 2)]
    else:
        for a in range(len(fs)):
            for b in range(len(fs)):
                f, g = cols[0][:, a], cols[1][:, b]
                designs += [np.column_stack([np.ones(len(y)), f, g]), np.column_stack([np.ones(len(y)), f * g])]
    best = (np.inf, None)
    for A in designs:
        Aw = A / y[:, None]
        coef, *_ = np.linalg.lstsq(Aw, np.ones(len(y)), rcond=None)
        rss = float(np.sum((Aw @ coef - 1) ** 2))
        if rss < best[0]:
            best = (rss, coef)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", type=int, default=200, help="data sets per case")
    ap.add_argument("--anchor-sets", type=int, default=20, help="data sets for the (slow) anchor")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    fitter = PMNFFitter(aggregate="mean")
    table = Table(title="PMNF fitting speed (models per second, higher is better)")
    for col in ("case", "hypotheses", "perfcompose models/s", "lstsq anchor models/s", "speed-up"):
        table.add_column(col, justify="right" if col != "case" else "left")
    for d, label in ((1, "1 parameter, 5 points"), (2, "2 parameters, 5x5 grid")):
        data = generate(rng, d, args.sets, 0.05)
        fitter.fit_arrays(*data[0], ["x"] if d == 1 else ["p", "n"])  # warm-up
        t0 = time.perf_counter()
        for X, values in data:
            fitter.fit_arrays(X, values, ["x"] if d == 1 else ["p", "n"])
        ours = len(data) / (time.perf_counter() - t0)
        t0 = time.perf_counter()
        for X, values in data[: args.anchor_sets]:
            lstsq_anchor(X, values)
        anchor = min(args.anchor_sets, len(data)) / (time.perf_counter() - t0)
        n_hyp = 1 + 56 + 56 * 55 // 2 if d == 1 else 1 + 2 * 56 * 56
        table.add_row(label, f"{n_hyp} (anchor)", f"{ours:,.0f}", f"{anchor:,.1f}", f"{ours / anchor:,.0f}x")
    Console().print(table)
    Console().print("Against Extra-P itself: benchmarks/compare_extrap.sh (see benchmarks/README.md).")


if __name__ == "__main__":
    main()
