"""Fitting and analysing a whole application profile: 10,000 call paths x 3 metrics, beside Extra-P on a tenth of it.

The profile is generated deterministically, as Extra-P profiles look: two parameters (p processes,
n problem size) on a 5 x 5 grid, 5 repetitions per point, three metrics per call path (time with
1-10 % noise, visits exact integers, bytes with 0.5 % noise) whose laws are PMNF terms in p, in n,
sums and products of them; the times of one call path in ten also scatter by 3 % from point to
point beyond their repetitions (a cache effect per size), so that the fitter searches them again at
that scatter. It is written as Extra-P JSON files (the whole profile, and its first
``--extrap-paths`` call paths). Every run is a whole process of its own that reads its file, fits
every series and writes the models (JSON: region, metric, the model in Extra-P's syntax, its
terms and statistics), timed from start to end, its peak memory the sum over the process and its
children (Dask workers, forked processes; proportional set sizes), sampled every 0.1 s:

* Extra-P 4.2.5 (``ModelGenerator(...).model_all()``, from ``.venv-extrap``) on the first
  ``--extrap-paths`` call paths (default 1,000: a tenth of the profile): the anchor (left out,
  with a note, where ``.venv-extrap`` is missing: ``benchmarks/compare_extrap.sh`` makes it);
* ``perfcompose analyze`` as a user runs it, the command in a process of its own, on the tenth and
  on the whole profile at p = 1024, n = 65536, writing its text, ``--html`` and ``--json``
  (the goal: the whole profile within 60 s and 2 GB on 2 cores);
* perfcompose's ``fit_profile`` on the same file in one process, and every series of it fitted
  alone with ``PMNFFitter.fit_series`` (the per-series path) in another, checked to give the same
  models;
* ``fit_profile`` on the whole profile in one process (unless ``--no-in-process``), in
  ``--processes`` forked processes (its default for a large profile: one per core), and on a Dask
  LocalCluster of each ``--workers`` count, the models of every run checked to be the same.

    python benchmarks/profile_scale.py [--paths 10000] [--extrap-paths 1000] [--workers 1,2]
                                       [--processes 2] [--no-in-process] [--no-extrap]
                                       [--extrap .venv-extrap/bin/python]

The table gives time per series and its ratio to Extra-P's, measured in the same run, and the
load average of the machine before and after.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
P = (4.0, 8.0, 16.0, 32.0, 64.0)
N = (1024.0, 2048.0, 4096.0, 8192.0, 16384.0)
REPS = 5
METRICS = ("time", "visits", "bytes")

# terms of one parameter, x^i * log2(x)^j: (i, j)
P_TERMS = [(0.5, 0), (1, 0), (0, 1), (1, 1), (2, 0), (0, 2)]
N_TERMS = [(1, 0), (1, 1), (1.5, 0), (2, 0), (0.5, 0), (0, 1)]
# terms that are integers at the points, for counts (visits)
COUNT_TERMS = [(1, 0), (0, 1), (1, 1), (2, 0)]
# the share of call paths whose times scatter between points beyond their repetitions (a cache
# effect per size, the same in every repetition): the fitter searches them again at that scatter
SCATTERED = 0.1

EXTRAP_FIT = r"""
import json, sys, time
start = time.perf_counter()
from extrap.fileio.file_reader.json_file_reader import JsonFileReader
from extrap.modelers.model_generator import ModelGenerator
experiment = JsonFileReader().read_experiment(sys.argv[1])
read = time.perf_counter()
generator = ModelGenerator(experiment)
generator.model_all()
json.dump({"fit": time.perf_counter() - read, "series": len(generator.models)}, open(sys.argv[2], "w"))
"""


def _term(x: np.ndarray, i: float, j: float) -> np.ndarray:
    return x ** i * np.log2(x) ** j


def profile(paths: int, seed: int = 7):
    """The generated profile: ``paths`` call paths x 3 metrics (see the module)."""
    from perfcompose.data.experiment import Experiment, Point, Series

    rng = np.random.default_rng(seed)
    grid = tuple((p, n) for p in P for n in N)
    g = np.array(grid)
    gp, gn = g[:, 0], g[:, 1]
    series = []
    for c in range(paths):
        kind = int(rng.integers(5))        # constant, in p, in n, p + n, p * n
        ip, jp = P_TERMS[int(rng.integers(len(P_TERMS)))]
        i_n, jn = N_TERMS[int(rng.integers(len(N_TERMS)))]
        fp, fn = _term(gp, ip, jp), _term(gn, i_n, jn)
        shape = [np.ones(25), fp, fn, fp / fp.max() + fn / fn.max(), fp * fn][kind]
        shape = shape / shape.max()
        region = f"main/solve_{c // 100}/kernel_{c}"
        base = 10.0 ** rng.uniform(-4, 1)
        share = rng.uniform(0.2, 5.0)
        cp, cn = (_term(gp, *COUNT_TERMS[int(rng.integers(4))]), _term(gn, *COUNT_TERMS[int(rng.integers(4))]))
        count = [np.ones(25), cp, cn, cp + cn, cp * cn][kind]
        visits = float(rng.integers(0, 100)) + float(rng.integers(1, 10)) * count   # exact integers
        time_law = base * (1 + share * shape)
        if rng.random() < SCATTERED:
            time_law = time_law * (1 + 0.03 * rng.standard_normal(25))
        laws = {"time": (time_law, rng.choice([0.01, 0.02, 0.05, 0.1])),
                "visits": (visits, 0.0),
                "bytes": (1024.0 * visits * rng.integers(1, 64), 0.005)}
        for metric in METRICS:
            law, noise = laws[metric]
            values = law[:, None] * (1 + noise * rng.standard_normal((25, REPS)))
            values = np.maximum(values, 0.0).tolist()
            series.append(Series(metric, tuple(Point(pt, tuple(v)) for pt, v in zip(grid, values)), region,
                                 "s" if metric == "time" else ""))
    return Experiment(("p", "n"), tuple(series), source=f"generated profile of {paths} call paths")


def digest(results) -> str:
    """A fingerprint of the models: labels, hypotheses and coefficients to the last digit."""
    h = hashlib.sha256()
    for r in results:
        h.update(repr((r.label, r.chosen.hypothesis, r.chosen.constant, r.chosen.coefficients)).encode())
    return h.hexdigest()[:16]


def _bar():
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=Console(stderr=True), transient=True)


def record(result) -> dict:
    """A fitted model as the measured processes write it: its Extra-P text, terms and statistics."""
    c = result.chosen
    return {"region": result.region, "metric": result.metric, "unit": result.unit, "model": result.text(),
            "constant": c.constant, "terms": [[coef, [[result.params[k], str(i), str(j)] for k, (i, j) in shape]]
                                              for coef, shape in c.terms],
            "stats": dict(result.stats), "warnings": list(result.warnings)}


def child(args: argparse.Namespace) -> None:
    """One measured process: read a profile, fit it, write the models; and write what it found."""
    import orjson

    from perfcompose.data import load
    from perfcompose.fit import PMNFFitter
    from perfcompose.fit.profile import fit_profile

    start = time.perf_counter()
    experiment = load(args.file)
    ready = time.perf_counter()
    scheduler = {"in-process": None, "processes": "processes", "dask": "local"}[args.child_mode]
    workers = 1 if args.child_mode == "in-process" else args.child_workers
    if args.per_series:
        fitter = PMNFFitter()
        results = [fitter.fit_series(experiment.parameters, s, source=experiment.source) for s in experiment.series]
    else:
        with _bar() as bar:
            results = fit_profile(experiment, fitter=PMNFFitter(), scheduler=scheduler, progress=bar,
                                  workers=workers)
    fitted = time.perf_counter()
    Path(args.models).write_bytes(orjson.dumps([record(r) for r in results], option=orjson.OPT_SERIALIZE_NUMPY))
    end = time.perf_counter()
    out = {"fit": fitted - ready, "read": ready - start, "write": end - fitted, "series": len(results),
           "digest": digest(results)}
    Path(args.out).write_text(json.dumps(out))


@dataclass
class Run:
    name: str
    wall: float
    cpu: float
    peak_mb: float
    found: dict


def measured(name: str, command: list[str], out: Path | None, stdout: Path | None = None) -> Run:
    """Run a command to its end: its wall time, its CPU time (user + system, with every child it
    waited for: the Dask workers, the forked processes), and its peak memory with its children's
    (proportional set sizes, which count a page shared by several processes once), sampled every 0.1 s."""
    import psutil

    start = time.perf_counter()
    sink = open(stdout, "w") if stdout else None  # noqa: SIM115 (closed once the process ends)
    proc = subprocess.Popen(command, cwd=ROOT, stdout=sink)
    top = psutil.Process(proc.pid)
    peak = 0
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        try:
            # proportional set size: forked processes share pages, each counted once in the sum
            rss = sum(p.memory_full_info().pss for p in [top, *top.children(recursive=True)])
            peak = max(peak, rss)
        except psutil.Error:
            pass
        time.sleep(0.1)
    wall = time.perf_counter() - start
    if sink:
        sink.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"{name} failed (exit {proc.returncode})")
    return Run(name, wall, usage.ru_utime + usage.ru_stime, peak / 2 ** 20, json.loads(out.read_text()) if out else {})


#: the target point of the analyze runs: 16x the largest p, 4x the largest n
TARGET = "p=1024,n=65536"


def analyze_runs(part: Path, whole: Path, paths: int, part_paths: int, tmp: Path) -> list[Run]:
    """``perfcompose analyze`` of the tenth and of the whole profile, each as a user runs it."""
    command = [str(Path(sys.executable).parent / "perfcompose"), "analyze"]
    runs = []
    for file, n in ((part, part_paths), (whole, paths)):
        out = tmp / f"analysis{n}"
        runs.append(measured(f"perfcompose analyze, {n} call paths (text, --html, --json)",
                             [*command, str(file), "--at", TARGET, "--html", f"{out}.html", "--json", f"{out}.json"],
                             None, stdout=Path(f"{out}.txt")))
        runs[-1].found.update(series=n * len(METRICS))
    return runs


def analyze_table(runs: list[Run], anchor: Run | None, paths: int):
    """The analyze runs beside Extra-P (whole processes, per series) and the goal."""
    from rich.table import Table

    table = Table(title=f"perfcompose analyze as users run it (at {TARGET}), beside Extra-P fitting the tenth",
                  title_justify="left")
    for col in ("run", "series", "process s", "CPU s", "peak MB", "process ms / series",
                "process vs Extra-P per series", "goal (whole profile: 60 s, 2 GB)"):
        table.add_column(col, justify="left" if col in ("run", "goal (whole profile: 60 s, 2 GB)") else "right")
    for r in ([anchor] if anchor else []) + runs:
        series = r.found["series"]
        ratio = "1 (anchor)" if r is anchor else "-" if anchor is None else \
            f"{(anchor.wall / anchor.found['series']) / (r.wall / series):.1f}x faster"
        goal = "-" if series < paths * len(METRICS) else \
            ("met" if r.wall <= 60 and r.peak_mb <= 2048 else "NOT met")
        table.add_row(r.name, str(series), f"{r.wall:.1f}", f"{r.cpu:.1f}", f"{r.peak_mb:.0f}",
                      f"{1e3 * r.wall / series:.2f}", ratio, goal)
    return table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--paths", type=int, default=10_000)
    ap.add_argument("--extrap-paths", type=int, default=1000,
                    help="call paths fitted by Extra-P and one by one (default 1000, a tenth of the profile; "
                         "Extra-P needs about a minute per 1,000 series on a quiet machine)")
    ap.add_argument("--workers", default="1,2", help="Dask worker counts for the whole profile, comma-separated")
    ap.add_argument("--processes", type=int, default=2,
                    help="also fit the whole profile in this many forked processes, fit_profile's default for "
                         "a large profile on 2 cores (0: not)")
    ap.add_argument("--in-process", action=argparse.BooleanOptionalAction, default=True,
                    help="also fit the whole profile in one process (default: yes)")
    ap.add_argument("--no-extrap", action="store_true")
    ap.add_argument("--fit-runs", action=argparse.BooleanOptionalAction, default=True,
                    help="also time fit_profile in one process, forked processes and Dask (default: yes)")
    ap.add_argument("--extrap", default=str(ROOT / ".venv-extrap" / "bin" / "python"))
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--child-workers", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--child-mode", default="in-process", help=argparse.SUPPRESS)
    ap.add_argument("--file", help=argparse.SUPPRESS)
    ap.add_argument("--models", help=argparse.SUPPRESS)
    ap.add_argument("--per-series", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
        return

    from rich.console import Console
    from rich.table import Table

    console = Console(width=None if sys.stdout.isatty() else 170)
    load_before = os.getloadavg()
    runs: list[Run] = []
    me = [sys.executable, str(Path(__file__).resolve()), "--child"]
    with tempfile.TemporaryDirectory() as tmp:
        from perfcompose.data.extrap_json import dumps

        part, whole = Path(tmp) / "part.json", Path(tmp) / "whole.json"
        console.print(f"writing the profiles ({args.extrap_paths} and {args.paths} call paths) ...")
        part.write_text(dumps(profile(args.extrap_paths)))
        out, models = Path(tmp) / "out.json", Path(tmp) / "models.json"
        io = ["--out", str(out), "--models", str(models)]
        small = args.extrap_paths * len(METRICS)
        if not args.no_extrap and not Path(args.extrap).exists():
            console.print(f"no Extra-P at {args.extrap} (benchmarks/compare_extrap.sh makes .venv-extrap): "
                          "the runs are shown without their anchor")
            args.no_extrap = True
        if not args.no_extrap:
            console.print(f"Extra-P: {small} series ...")
            runs.append(measured(f"Extra-P 4.2.5, {args.extrap_paths} call paths", [args.extrap, "-c", EXTRAP_FIT,
                                 str(part), str(out)], out))
        if args.fit_runs:
            console.print(f"perfcompose: the same {small} series ...")
            runs.append(measured(f"fit_profile, {args.extrap_paths} call paths, in-process",
                                 me + ["--file", str(part), *io], out))
            runs.append(measured(f"PMNFFitter.fit_series one by one, {args.extrap_paths} call paths",
                                 me + ["--file", str(part), "--per-series", *io], out))
        whole.write_text(dumps(profile(args.paths)))
        console.print(f"perfcompose analyze: {args.extrap_paths} and {args.paths} call paths ...")
        commands = analyze_runs(part, whole, args.paths, args.extrap_paths, Path(tmp))
        counts = [int(w) for w in args.workers.split(",") if w.strip()]
        modes = ([("in-process", 1)] if args.in_process else []) + \
            ([("processes", args.processes)] if args.processes else []) + [("dask", w) for w in counts]
        modes = modes if args.fit_runs else []
        for mode, w in modes:
            where = {"in-process": "in-process", "processes": f"{w} forked processes",
                     "dask": f"{w} Dask worker{'s' * (w > 1)}"}[mode]
            console.print(f"perfcompose: {args.paths} call paths x {len(METRICS)} metrics, {where} ...")
            runs.append(measured(f"fit_profile, {args.paths} call paths, {where}",
                                 me + ["--file", str(whole), "--child-mode", mode, "--child-workers", str(w), *io],
                                 out))
    load_after = os.getloadavg()

    anchor = next((r for r in runs if r.name.startswith("Extra-P")), None)
    per = {id(r): r.found["fit"] / r.found["series"] for r in runs}
    table = Table(title=f"Fitting a profile of {args.paths} call paths x {len(METRICS)} metrics (2 parameters, "
                        f"5 x 5 points, {REPS} repetitions)", title_justify="left")
    for col in ("run", "series", "process s", "CPU s", "read s", "fitting s", "write s", "ms / series",
                "vs Extra-P per series", "process vs Extra-P per series", "CPU vs Extra-P per series", "peak MB",
                "models"):
        table.add_column(col, justify="left" if col in ("run", "models") else "right")
    digests = {r.found["digest"] for r in runs if not r.name.startswith("Extra-P") and r.found["series"] > small}
    small_digests = {r.found["digest"] for r in runs if not r.name.startswith("Extra-P") and r.found["series"] == small}
    for r in runs:
        f = r.found
        ratio = f"{per[id(anchor)] / per[id(r)]:.1f}x faster" if anchor and r is not anchor else "1 (anchor)" \
            if r is anchor else "-"
        if r.name.startswith("Extra-P"):
            models = "-"
        elif f["series"] == small:
            models = "the same" if len(small_digests) == 1 else "DIFFER"
        else:
            models = "the same in every run" if len(digests) == 1 else "DIFFER between runs"
        whole = "-" if not anchor else "1 (anchor)" if r is anchor else \
            f"{(anchor.wall / anchor.found['series']) / (r.wall / f['series']):.1f}x faster"
        cpu = "-" if not anchor else "1 (anchor)" if r is anchor else \
            f"{(anchor.cpu / anchor.found['series']) / (r.cpu / f['series']):.1f}x less"
        table.add_row(r.name, str(f["series"]), f"{r.wall:.1f}", f"{r.cpu:.1f}",
                      "-" if "read" not in f else f"{f['read']:.1f}", f"{f['fit']:.1f}",
                      "-" if "write" not in f else f"{f['write']:.1f}",
                      f"{1e3 * per[id(r)]:.2f}", ratio, whole, cpu, f"{r.peak_mb:.0f}", models)
    if len(runs) > (anchor is not None):
        console.print(table)
    console.print(analyze_table(commands, anchor, args.paths))
    cores = len(os.sched_getaffinity(0))
    console.print(f"load average (1 min) before {load_before[0]:.1f}, after {load_after[0]:.1f}; {cores} cores; "
                  f"{os.uname().nodename}. "
                  f"process s: the whole process (read the file, fit, write the models; for analyze also the "
                  f"bootstrap, composing, ranking, the text, the page and the JSON); ms / series: fitting "
                  f"time over series (a Dask run's includes starting its cluster; Extra-P's excludes reading); "
                  f"CPU: the whole process with its children, per series. Goal: the whole profile within 60 s "
                  f"and 2 GB on 2 cores.")


if __name__ == "__main__":
    main()
