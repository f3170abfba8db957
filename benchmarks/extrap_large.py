"""Fitting a large experiment (4 parameters, 625 points), perfcompose against Extra-P, side by side.

Both programs read the same Extra-P JSON file and model it, as whole processes (start-up,
reading, modeling, printing) and as the modeling call alone, timed inside each process:
``PMNFFitter().fit`` here, Extra-P's ``ModelGenerator(...).model_all()`` (its Default modeler)
in its own virtual environment (``.venv-extrap``, see ``compare_extrap.sh``). Each is run
``--repeat`` times and the fastest run counts; the table gives the ratio perfcompose / Extra-P.

    python benchmarks/extrap_large.py [FILE] [--repeat 3] [--extrap .venv-extrap/bin/python]

Without FILE an experiment like Extra-P's tests/data/json/input_10.JSON is generated: a 5^4
grid, 5 repetitions per point, 2 % noise on 1.5 + 1.5 * x^2.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

EXTRAP_FIT = r"""
import sys, time
from extrap.fileio.file_reader.json_file_reader import JsonFileReader
from extrap.modelers.model_generator import ModelGenerator
experiment = JsonFileReader().read_experiment(sys.argv[1])
start = time.perf_counter()
generator = ModelGenerator(experiment)
generator.model_all()
print(time.perf_counter() - start)
print(next(iter(generator.models.values())).hypothesis.function)
"""

PERFCOMPOSE_FIT = r"""
import sys, time
from perfcompose.data import load
from perfcompose.fit import PMNFFitter
experiment = load(sys.argv[1])
start = time.perf_counter()
results = PMNFFitter().fit(experiment).results_
print(time.perf_counter() - start)
print(results[0].model.to_extrap(digits=6))
"""


def generate(path: Path, seed: int = 1) -> None:
    """A 4-parameter experiment on a 5^4 grid in Extra-P's JSON format."""
    from perfcompose.data import Experiment, save

    rng = np.random.default_rng(seed)
    axis = [2.0, 4, 8, 16, 32]
    points = []
    for x in axis:
        for y in axis:
            for z in axis:
                for t in axis:
                    f = 1.5 + 1.5 * x ** 2
                    points.append(((x, y, z, t), tuple(f * (1 + 0.02 * rng.standard_normal(5)))))
    save(Experiment.single(["x", "y", "z", "t"], points), path, "extrap-json")


def best_of(command: list[str], repeat: int, env: dict[str, str], timed: bool = True) -> tuple[float, float, str]:
    """Fastest wall time of the whole process and, where it prints them (``timed``), the fastest
    time it reports for its modeling call and its model."""
    wall, inner, model = [], [], ""
    for _ in range(repeat):
        start = time.perf_counter()
        out = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
        wall.append(time.perf_counter() - start)
        if out.returncode != 0:
            sys.exit(f"{' '.join(command[:2])} failed:\n{out.stderr[-2000:]}")
        if timed:
            lines = out.stdout.strip().splitlines()
            inner.append(float(lines[0]))
            model = lines[1] if len(lines) > 1 else ""
    return min(wall), min(inner, default=float("nan")), model


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", type=Path, help="Extra-P JSON experiment (default: generated)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--extrap", default=".venv-extrap/bin/python", help="Python of Extra-P's environment")
    args = ap.parse_args()
    if not Path(args.extrap).exists():
        sys.exit(f"no Extra-P at {args.extrap}: run benchmarks/compare_extrap.sh once, or pass --extrap")
    with tempfile.TemporaryDirectory() as tmp:
        path = args.file
        if path is None:
            path = Path(tmp) / "grid4.json"
            generate(path)
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        ours = best_of([sys.executable, "-c", PERFCOMPOSE_FIT, str(path)], args.repeat, env)
        theirs = best_of([args.extrap, "-c", EXTRAP_FIT, str(path)], args.repeat, env)
        perf_cli = best_of([str(Path(sys.executable).parent / "perfcompose"), "fit", str(path)], args.repeat,
                           {**env, "COLUMNS": "200"}, timed=False)
        extrap_cli = best_of([str(Path(args.extrap).parent / "extrap"), "--json", str(path), "--print", "functions",
                              "--disable-progress"], args.repeat, env, timed=False)
    table = Table(title=f"{path.name}, fastest of {args.repeat} runs (load: {os.getloadavg()[0]:.1f})",
                  title_justify="left")
    for col in ("", "perfcompose [s]", "Extra-P 4.2.5 [s]", "ratio"):
        table.add_column(col.replace("[", "\\["), justify="left" if not col else "right")
    table.add_row("modeling call", f"{ours[1]:.3f}", f"{theirs[1]:.3f}", f"{ours[1] / theirs[1]:.2f}")
    table.add_row("whole process (fit command)", f"{perf_cli[0]:.3f}", f"{extrap_cli[0]:.3f}",
                  f"{perf_cli[0] / extrap_cli[0]:.2f}")
    console = Console()
    console.print(table)
    console.print(f"perfcompose: {ours[2]}\nExtra-P:     {theirs[2]}")


if __name__ == "__main__":
    main()
