"""perfcompose's PMNF fitter beside Extra-P 4.2.5 on many seeds of the PMNF fitter benchmark.

    python benchmarks/extrap_seeds.py BENCH_DIR --seeds 20-31 [--out bench_seeds]

One seed's 3,000 data sets move a median at 16x by a few hundredths, as much as the margins
between the fitters; this runs the benchmark (``bench/fit``: ``gen_data.py``, ``run_extrap.py``,
``run_adapter.py``) on every seed, prints each seed's figures against the goals of
``compare_extrap.sh``, and pools all seeds with bootstrap intervals (seeds resampled, then data
sets within them). Each seed's results are kept under ``OUT/seed_N``; a run that is stopped goes
on from the seeds already done. Extra-P runs from ``.venv-extrap`` (``compare_extrap.sh`` makes
it); perfcompose from the current Python.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
from extrap_inputs import EXTRAP_PYTHON, require_extrap  # noqa: E402
from extrap_targets import median, rows  # noqa: E402

HERE = Path(__file__).resolve().parent
NOISE = (0.0, 0.01, 0.05, 0.1)
Record = dict[str, str]


def seed_list(text: str) -> list[str]:
    """'20-25,30,default' -> ['20', ..., '25', '30', 'default']."""
    out: list[str] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += [str(s) for s in range(int(lo), int(hi) + 1)] if hi else [part]
    return out


def run_seed(bench: Path, seed: str, folder: Path, console: Console) -> None:
    """Generate one seed's data sets and fit them with both fitters, skipping what exists."""
    data, results = folder / "datasets.json", folder / "results"
    steps = [
        (data, [sys.executable, "gen_data.py", "--out", str(folder)]
         + ([] if seed == "default" else ["--seed", seed])),
        (results / "extrap_default_results.csv",
         [str(EXTRAP_PYTHON), "run_extrap.py", "--data", str(data), "--out", str(results),
          "--modelers", "Default", "--check-cli", "0", "--no-check-text"]),
        (results / "perfcompose_results.csv",
         [sys.executable, "run_adapter.py", "--adapter", "pmnf_adapter:make", "--name", "perfcompose",
          "--data", str(data), "--out", str(results)]),
    ]
    for done, cmd in steps:
        if done.exists():
            continue
        console.print(f"seed {seed}: {Path(cmd[1]).stem}")
        subprocess.run(cmd, cwd=bench, check=True, stdout=subprocess.DEVNULL,
                       env={**os.environ, "PYTHONPATH": str(HERE)})


def columns(anchor: list[Record], cand: list[Record]) -> dict[str, np.ndarray]:
    """Both fitters' results per data set, matched by id, as arrays."""
    by_id = {r["id"]: r for r in anchor}
    pairs = [(by_id[r["id"]], r) for r in cand]

    def err(r: Record) -> float:
        return float(r["err_x16"]) if r["err_x16"] else float("inf")

    return {"npar": np.array([int(c["n_params"]) for _, c in pairs]),
            "noise": np.array([float(c["noise"]) for _, c in pairs]),
            "err_a": np.array([err(a) for a, _ in pairs]), "err_c": np.array([err(c) for _, c in pairs]),
            "lead_a": np.array([a["lead_match"] == "True" for a, _ in pairs]),
            "lead_c": np.array([c["lead_match"] == "True" for _, c in pairs]),
            "cpu_a": np.array([float(a["fit_cpu_seconds"] or 0) for a, _ in pairs]),
            "cpu_c": np.array([float(c["fit_cpu_seconds"] or 0) for _, c in pairs])}


def figures(t: dict[str, np.ndarray], rows_: np.ndarray | None = None) -> dict[str, float]:
    """The figures compare_extrap.sh's goals are stated in, over the data sets ``rows_`` (all by default)."""
    if rows_ is not None:
        t = {k: v[rows_] for k, v in t.items()}
    out: dict[str, float] = {}
    for n in (1, 2):
        m = t["npar"] == n
        out[f"lead{n}"] = 100 * (t["lead_c"][m].mean() - t["lead_a"][m].mean())
        for noise in NOISE:
            z = m & (t["noise"] == noise)
            out[f"a{n}_{noise}"] = median(t["err_a"][z])
            out[f"c{n}_{noise}"] = median(t["err_c"][z])
        out[f"speed{n}"] = t["cpu_a"][m].sum() / max(t["cpu_c"][m].sum(), 1e-12)
    out["over_a"] = float(np.sum(t["err_a"] > 1.0))
    out["over_c"] = float(np.sum(t["err_c"] > 1.0))
    return out


def verdict(f: dict[str, float]) -> list[str]:
    """The goals one seed misses: lead term +15 points, every median row at or below Extra-P's,
    at most 40 data sets above 100 % at 16x, 10x the models per second."""
    miss = [f"lead {n}p {f[f'lead{n}']:+.1f}" for n in "12" if f[f"lead{n}"] < 15]
    miss += [f"{n}p {z:.0%} {f[f'c{n}_{z}']:.3f}>{f[f'a{n}_{z}']:.3f}" for n in "12" for z in NOISE
             if f[f"c{n}_{z}"] > f[f"a{n}_{z}"]]
    miss += [f"over {f['over_c']:.0f}"] if f["over_c"] > 40 else []
    miss += [f"speed {n}p {f[f'speed{n}']:.0f}x" for n in "12" if f[f"speed{n}"] < 10]
    return miss


def pooled(per_seed: list[dict[str, np.ndarray]], draws: int, rng: np.random.Generator
           ) -> tuple[dict[str, float], dict[str, tuple[float, float]]]:
    """Pooled figures and 95 % bootstrap intervals of perfcompose's margins over Extra-P."""
    table = {k: np.concatenate([t[k] for t in per_seed]) for k in per_seed[0]}
    starts = np.cumsum([0] + [len(t["npar"]) for t in per_seed])
    point = figures(table)
    samples: dict[str, list[float]] = {}
    for _ in range(draws):
        picks = [starts[k] + rng.integers(0, starts[k + 1] - starts[k], starts[k + 1] - starts[k])
                 for k in rng.integers(0, len(per_seed), len(per_seed))]
        f = figures(table, np.concatenate(picks))
        for key in point:
            if key[0] == "c" and key[1] in "12":
                samples.setdefault(key, []).append(f[key] - f["a" + key[1:]])
            elif key.startswith("lead"):
                samples.setdefault(key, []).append(f[key])
    ci = {k: (float(np.percentile(v, 2.5)), float(np.percentile(v, 97.5))) for k, v in samples.items()}
    return point, ci


def report(seeds: list[str], per_seed: list[dict[str, np.ndarray]], draws: int,
           console: Console) -> None:
    table = Table(title="each seed against the goals", title_justify="left")
    for col in ("seed", "lead 1p / 2p", "above 100 %", "models/s 1p / 2p", "goals missed"):
        table.add_column(col, justify="right" if col != "goals missed" else "left")
    met = 0
    for seed, t in zip(seeds, per_seed):
        f = figures(t)
        miss = verdict(f)
        met += not miss
        table.add_row(seed, f"{f['lead1']:+.1f} / {f['lead2']:+.1f}", f"{f['over_c']:.0f} / {f['over_a']:.0f}",
                      f"{f['speed1']:.0f}x / {f['speed2']:.0f}x", ", ".join(miss) or "none")
    console.print(table)
    console.print(f"{met} of {len(seeds)} seeds meet every goal")
    point, ci = pooled(per_seed, draws, np.random.default_rng(0))
    tab = Table(title=f"{len(seeds)} seeds pooled (95 % bootstrap intervals)", title_justify="left")
    for col in ("figure", "Extra-P", "perfcompose", "difference", "interval"):
        tab.add_column(col, justify="right")
    for n in "12":
        lo, hi = ci[f"lead{n}"]
        tab.add_row(f"lead term exact, {n}p", "", "", f"{point[f'lead{n}']:+.1f} points", f"[{lo:+.1f}, {hi:+.1f}]")
        for z in NOISE:
            lo, hi = ci[f"c{n}_{z}"]
            a, c = point[f"a{n}_{z}"], point[f"c{n}_{z}"]
            tab.add_row(f"median error at 16x, {n}p, {z:.0%}", f"{a:.3f}", f"{c:.3f}", f"{c - a:+.3f}",
                        f"[{lo:+.3f}, {hi:+.3f}]")
    tab.add_row("above 100 % at 16x, per seed", f"{point['over_a'] / len(seeds):.1f}",
                f"{point['over_c'] / len(seeds):.1f}", "", "")
    console.print(tab)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bench", type=Path, help="the benchmark folder (bench/fit)")
    ap.add_argument("--seeds", default="20-31", help="seeds, e.g. 20-31 or default,11,12 (default: %(default)s)")
    ap.add_argument("--out", type=Path, default=Path("bench_seeds"), help="results folder (default: %(default)s)")
    ap.add_argument("--draws", type=int, default=200, help="bootstrap draws (default: %(default)s)")
    args = ap.parse_args(argv)
    console = Console()
    require_extrap(console)
    seeds = seed_list(args.seeds)
    per_seed = []
    for seed in seeds:
        folder = (args.out / f"seed_{seed}").resolve()
        run_seed(args.bench.resolve(), seed, folder, console)
        per_seed.append(columns(rows(folder / "results" / "extrap_default_results.csv"),
                                rows(folder / "results" / "perfcompose_results.csv")))
    report(seeds, per_seed, args.draws, console)


if __name__ == "__main__":
    main()
