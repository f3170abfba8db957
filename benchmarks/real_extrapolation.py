"""Extrapolation on real measurements: perfcompose's PMNF fitter against Extra-P 4.2.5.

    [EXTRAP_REPO=DIR] [EXTRAP_GPR_REPO=DIR] python benchmarks/real_extrapolation.py
        [--extrap-repo DIR] [--gpr-repo DIR] [--sets relearn,relearn_theta,mpi_collectives,mm_cube]
        [--checkpoint .perfcompose/real_extrapolation.jsonl] [--restart] [--worst N] [--csv FILE]

The data sets are measured runs published with Extra-P's repositories (a clone, or the git
directory of one; nothing is copied into the project):

* ``relearn`` (``EXTRAP_GPR_REPO``, relearn/relearn-125_execution_times/relearn.txt): RELeARN,
  14 timers over processes p (32-512) and neurons per process n (5,000-9,000), 2 runs per point.
* ``relearn_theta`` (the same folder's ``*.out`` run logs): the same timers with the Barnes-Hut
  acceptance criterion theta (0.1-0.5) as a third parameter, 125 points, 2 runs per point where
  the log holds both (the slowest rank's time per timer, as the folder's collection script takes).
* ``mpi_collectives`` (``EXTRAP_REPO``, tests/data/mpi_data.csv): the median latency of seven MPI
  collectives under Intel MPI and Open MPI over 32-512 ranks (one value per point, the median of
  about 2,000 timings).
* ``mm_cube`` (``EXTRAP_REPO``, tests/data/cubeset/single_parameter): Score-P profiles of a
  matrix multiplication, 4 call paths over the size x (1-2,000, 9 values), one run each. (The
  three-parameter CUBE set beside it has 3 values per parameter, too few to fit below a cut.)

For every data set and every parameter with at least 4 values, both fitters model each series on
the points below that parameter's largest value and predict the points at it. Both model the
mean of a point's runs: Extra-P's default modeler gets the runs (it models their mean), and
perfcompose gets the runs with ``aggregate="mean"`` (the runs also give it the noise). The
error of a prediction is ``|predicted - measured mean| / measured mean`` (points measured as 0
are left out; a prediction a fitter fails to make counts as an infinite error). The table gives
per data set and parameter, per data set and pooled: the median error with a 95 % bootstrap
interval (series resampled), the share of predictions off by more than 50 %, and how often each
is the closer. Extra-P (``.venv-extrap``, made by
``compare_extrap.sh``) runs as its own process; its predictions are kept in the checkpoint, so
an interrupted run resumes, and perfcompose is fitted afresh every run.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from perfcompose.checkpoint import Checkpoint
from perfcompose.data import Experiment, load, save
from perfcompose.data.experiment import Point, Series
from perfcompose.errors import PerfcomposeError
from perfcompose.fit import PMNFFitter
from perfcompose.fit.pmnf import predict

sys.path.insert(0, str(Path(__file__).resolve().parent))
from extrap_inputs import EXTRAP_PYTHON, require_extrap  # noqa: E402

RELEARN = "relearn/relearn-125_execution_times"
AGGREGATE = "mean"

# run by Extra-P's Python: per job, model the training file and evaluate every model at the
# held-out coordinates; one JSON line per job, so that the caller can checkpoint as it goes
EXTRAP_SIDE = r"""
import json, sys, warnings
warnings.filterwarnings("ignore")
import numpy as np
from extrap.fileio.file_reader.text_file_reader import TextFileReader
from extrap.modelers.model_generator import ModelGenerator
for line in sys.stdin:
    job = json.loads(line)
    out, error = {}, None
    try:
        experiment = TextFileReader().read_experiment(job["file"])
        generator = ModelGenerator(experiment)
        generator.model_all()
        for (callpath, metric), model in generator.models.items():
            X = np.array(job["test"][callpath.name], dtype=float).T
            f = model.hypothesis.function
            v = f.evaluate(X[0] if len(X) == 1 else X)
            out[callpath.name] = {"pred": np.broadcast_to(np.asarray(v, dtype=float), (X.shape[1],)).tolist(),
                                  "model": str(f)}
    except Exception as exc:   # a series Extra-P cannot model counts as a failed prediction
        error = f"{type(exc).__name__}: {exc}"
    print(json.dumps({"key": job["key"], "series": out, "error": error}), flush=True)
"""


@dataclass(frozen=True)
class Cut:
    """One data set cut along one parameter: the training points (the data set's parameters and
    its series below the cut, an experiment of their own) and the held-out points."""

    dataset: str
    param: str
    train: Experiment
    test_x: tuple[np.ndarray, ...]     # per series: held-out coordinates (m, d)
    test_y: tuple[np.ndarray, ...]     # per series: measured means there

    @property
    def key(self) -> str:
        return f"{self.dataset}:{self.param}"

    def extrap_text(self) -> str:
        """The training points in Extra-P's text format (perfcompose's writer), regions r0, r1, ..."""
        renamed = Experiment(self.train.parameters, tuple(Series(s.metric, s.points, f"r{i}", s.unit)
                                                          for i, s in enumerate(self.train.series)))
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "train.txt"
            save(renamed, path, "extrap-text")
            return path.read_text()

    def digest(self) -> str:
        return hashlib.sha1(self.extrap_text().encode()).hexdigest()[:16]


# -- reading the published measurements ----------------------------------------------------------

def _files(repo: Path, prefix: str) -> Iterator[tuple[str, str]]:
    """(path, text) of every file under ``prefix`` of a clone (work tree) or git directory."""
    if (repo / prefix).exists():
        base = repo / prefix
        for p in sorted([base] if base.is_file() else base.rglob("*")):
            if p.is_file():
                yield p.relative_to(repo).as_posix(), p.read_text(errors="replace")
        return
    names = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "--name-only", "HEAD", prefix],
                           capture_output=True, text=True, check=True).stdout.split("\n")
    for name in sorted(n for n in names if n):
        text = subprocess.run(["git", "-C", str(repo), "show", f"HEAD:{name}"], capture_output=True,
                              check=True).stdout.decode(errors="replace")
        yield name, text


def relearn(repo: Path) -> Experiment:
    """RELeARN's 14 timers over p and n, read by perfcompose's Extra-P text reader."""
    text = dict(_files(repo, f"{RELEARN}/relearn.txt"))[f"{RELEARN}/relearn.txt"]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "relearn.txt"
        path.write_text(text)
        return load(path, "extrap-text")


_TIMER = re.compile(r"^( *)(\S.*?)\s*:\s*([-+0-9.eE]+)\s*\|\s*([-+0-9.eE]+)\s*\|\s*([-+0-9.eE]+)\s*$")
_RUN = re.compile(r"relearn_p(\d+)_size(\d+)_theta([0-9.]+)\.")


def relearn_timers(text: str) -> list[dict[str, float]]:
    """Per run logged in a RELeARN output, each timer's slowest-rank time (the 'max' column)."""
    runs: list[dict[str, float]] = []
    inside = False
    for line in text.splitlines():
        if "TIMERS GLOBAL OVER ALL RANKS" in line:
            runs.append({})
            inside = True
            continue
        if inside:
            m = _TIMER.match(line)
            if m:
                runs[-1][m.group(2)] = float(m.group(5))
            elif line.startswith("=") or (runs[-1] and not line.strip()):
                inside = False
    return [r for r in runs if r]


def relearn_theta(repo: Path) -> Experiment:
    """RELeARN's timers over p, n and theta from its run logs (2 runs per file where both finished)."""
    points: dict[str, dict[tuple[float, ...], list[float]]] = {}
    for name, text in _files(repo, RELEARN):
        m = _RUN.search(name)
        if not m or not name.endswith(".out"):
            continue
        coord = (float(m.group(1)), float(m.group(2)), float(m.group(3)))
        for run in relearn_timers(text):
            for timer, value in run.items():
                points.setdefault(timer, {}).setdefault(coord, []).append(value)
    series = tuple(Series("time", tuple(Point(c, tuple(v)) for c, v in sorted(pts.items())), timer)
                   for timer, pts in points.items())
    return Experiment(("p", "n", "theta"), series, source="relearn logs")


def mpi_collectives(repo: Path) -> Experiment:
    """Median latencies of MPI collectives over the ranks (one value per point)."""
    text = dict(_files(repo, "tests/data/mpi_data.csv"))["tests/data/mpi_data.csv"]
    rows: dict[str, list[Point]] = {}
    for row in csv.DictReader(io.StringIO(text)):
        rows.setdefault(f"{row['mpi']}/{row['variable']}", []).append(
            Point((float(row["Ranks"]),), (float(row["median"]),)))
    return Experiment(("ranks",), tuple(Series("latency", tuple(p), r, "us") for r, p in rows.items()),
                      source="mpi_data.csv")


def mm_cube(repo: Path) -> Experiment:
    """Score-P profiles (CUBE) of a matrix multiplication over one size parameter, read by
    perfcompose's CUBE folder reader from a temporary copy (``git archive``) of the folder."""
    prefix = "tests/data/cubeset/single_parameter"
    if (repo / prefix).is_dir():
        return load(repo / prefix)
    archive = subprocess.run(["git", "-C", str(repo), "archive", "HEAD", prefix], capture_output=True, check=True)
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(tmp, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))  # type: ignore[arg-type]
        return load(Path(tmp) / prefix)


DATASETS: dict[str, tuple[str, Callable[[Path], Experiment]]] = {
    "relearn": ("gpr", relearn),
    "relearn_theta": ("gpr", relearn_theta),
    "mpi_collectives": ("extrap", mpi_collectives),
    "mm_cube": ("extrap", mm_cube),
}


def cuts(name: str, e: Experiment) -> list[Cut]:
    """Per parameter with at least 4 values: train below its largest value, hold out the rest."""
    out = []
    for k, param in enumerate(e.parameters):
        values = sorted({p.coordinate[k] for s in e.series for p in s.points})
        if len(values) < 4:
            continue
        top = values[-1]
        train, tx, ty = [], [], []
        for s in e.series:
            below = tuple(p for p in s.points if p.coordinate[k] < top)
            above = [p for p in s.points if p.coordinate[k] == top]
            if not above or len({p.coordinate[k] for p in below}) < 3:
                continue
            train.append(Series(s.metric, below, s.region, s.unit))
            tx.append(np.array([p.coordinate for p in above], dtype=float))
            ty.append(np.array([np.mean(p.values) for p in above]))
        if train:
            out.append(Cut(name, param, Experiment(e.parameters, tuple(train)), tuple(tx), tuple(ty)))
    return out


# -- the two fitters ------------------------------------------------------------------------------

def perfcompose_predictions(cut: Cut) -> list[tuple[np.ndarray, str]]:
    """perfcompose's prediction at the held-out points of every series, and its model."""
    fitter = PMNFFitter(aggregate=AGGREGATE)
    out = []
    for s, X in zip(cut.train.series, cut.test_x):
        try:
            r = fitter.fit_series(cut.train.parameters, s)
            out.append((predict(r.chosen, X), r.text(digits=4)))
        except PerfcomposeError as exc:
            out.append((np.full(len(X), np.nan), f"failed: {exc}"))
    return out


def extrap_predictions(todo: list[Cut], done: dict[str, Any], checkpoint: Checkpoint,
                       progress: Progress) -> None:
    """Extra-P's predictions for the cuts not in ``done`` (by key and training data), one process."""
    if not todo:
        return
    task = progress.add_task("Extra-P 4.2.5", total=len(todo))
    with tempfile.TemporaryDirectory() as tmp:
        jobs = []
        for i, cut in enumerate(todo):
            path = Path(tmp) / f"cut{i}.txt"
            path.write_text(cut.extrap_text())
            jobs.append({"key": cut.key, "file": str(path),
                         "test": {f"r{j}": X.tolist() for j, X in enumerate(cut.test_x)}})
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        proc = subprocess.Popen([str(EXTRAP_PYTHON), "-c", EXTRAP_SIDE], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True, env=env)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("".join(json.dumps(j) + "\n" for j in jobs))
        proc.stdin.close()
        digests = {cut.key: cut.digest() for cut in todo}
        for line in proc.stdout:
            rec = json.loads(line)
            rec["digest"] = digests[rec["key"]]
            checkpoint.append(rec)
            done[rec["key"]] = rec
            progress.advance(task)
        if proc.wait() != 0:
            sys.exit("Extra-P's modeling failed (its error is above)")


# -- statistics -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Rows:
    """Relative errors of both fitters, one entry per prediction, with the series it belongs to."""

    ours: np.ndarray
    theirs: np.ndarray
    group: np.ndarray   # series index (bootstrap cluster)


def _wmedian(err: np.ndarray, weight: np.ndarray) -> float:
    """The weighted median (the first value whose cumulative weight reaches half; equal weights:
    the plain median)."""
    if np.all(weight == weight[0]):
        return float(np.median(err))
    order = np.argsort(err, kind="stable")
    cum = np.cumsum(weight[order])
    return float(err[order][min(int(np.searchsorted(cum, 0.5 * cum[-1])), len(err) - 1)])


def _median_ci(err: np.ndarray, group: np.ndarray, weight: np.ndarray, rng: np.random.Generator,
               rounds: int = 1000) -> tuple[float, float, float]:
    """(Weighted) median and its 95 % bootstrap interval, whole series resampled."""
    ids = np.unique(group)
    members = [np.flatnonzero(group == g) for g in ids]
    meds = []
    for _ in range(rounds):
        pick = np.concatenate([members[i] for i in rng.integers(0, len(ids), len(ids))])
        meds.append(_wmedian(err[pick], weight[pick]))
    lo, hi = np.percentile(meds, [2.5, 97.5])
    return _wmedian(err, weight), float(lo), float(hi)


def summary(rows: Rows, rng: np.random.Generator, weight: np.ndarray | None = None) -> tuple[list[str], float, float]:
    """The table's cells for these predictions (each weighing ``weight``, default alike), and
    both medians."""
    o, t, g = rows.ours, rows.theirs, rows.group
    w = np.ones(len(o)) if weight is None else weight
    mo, lo_o, hi_o = _median_ci(o, g, w, rng)
    mt, lo_t, hi_t = _median_ci(t, g, w, rng)
    close = np.isclose(o, t, rtol=1e-6, atol=1e-9)
    share = lambda bad: 100 * np.sum(w * bad) / np.sum(w)  # noqa: E731
    return [str(len(o)), str(len(np.unique(g))),
            f"{100 * mo:.1f} [{100 * lo_o:.1f}, {100 * hi_o:.1f}]",
            f"{100 * mt:.1f} [{100 * lo_t:.1f}, {100 * hi_t:.1f}]",
            f"{mo / mt:.2f}" if mt > 0 else "-",
            f"{share(o > 0.5):.0f} / {share(t > 0.5):.0f}",
            f"{int(np.sum((o < t) & ~close))} / {int(np.sum((t < o) & ~close))} / {int(np.sum(close))}"], mo, mt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extrap-repo", type=Path, default=os.environ.get("EXTRAP_REPO"),
                    help="clone (or git directory) of extra-p/extrap; default $EXTRAP_REPO")
    ap.add_argument("--gpr-repo", type=Path, default=os.environ.get("EXTRAP_GPR_REPO"),
                    help="clone (or git directory) of extra-p/extrap-gpr; default $EXTRAP_GPR_REPO")
    ap.add_argument("--sets", default=",".join(DATASETS), help="comma-separated data sets")
    ap.add_argument("--checkpoint", type=Path, default=Path(".perfcompose/real_extrapolation.jsonl"))
    ap.add_argument("--restart", action="store_true", help="forget Extra-P's predictions kept so far")
    ap.add_argument("--worst", type=int, default=0, help="list the N predictions perfcompose loses most")
    ap.add_argument("--csv", type=Path, help="write every prediction to this CSV file")
    args = ap.parse_args()
    console = Console()
    require_extrap(console)
    repos = {"extrap": args.extrap_repo, "gpr": args.gpr_repo}
    sets = [s for s in args.sets.split(",") if s]
    unknown = [s for s in sets if s not in DATASETS]
    if unknown:
        sys.exit(f"unknown data set(s) {', '.join(unknown)}; choose from {', '.join(DATASETS)}")
    all_cuts: list[Cut] = []
    for name in sets:
        which, reader = DATASETS[name]
        if repos[which] is None:
            console.print(f"[yellow]{name} skipped: set {'EXTRAP_REPO' if which == 'extrap' else 'EXTRAP_GPR_REPO'}"
                          " (or pass the repository)[/]")
            continue
        all_cuts += cuts(name, reader(Path(repos[which])))
    with Checkpoint.open(args.checkpoint, restart=args.restart,
                         busy=lambda: RuntimeError(f"{args.checkpoint} is in use by another run")) as checkpoint:
        done = {rec["key"]: rec for _, rec in checkpoint.lines() if rec is not None and "key" in rec}
        todo = [c for c in all_cuts if c.key not in done or done[c.key].get("digest") != c.digest()]
        with Progress(console=console, transient=True) as progress:
            extrap_predictions(todo, done, checkpoint, progress)
            task = progress.add_task("perfcompose", total=len(all_cuts))
            ours = {}
            for cut in all_cuts:
                ours[cut.key] = perfcompose_predictions(cut)
                progress.advance(task)
    records = []   # (dataset, param, region, coordinate, measured, ours, theirs, our model, their model)
    for cut in all_cuts:
        theirs = done[cut.key]["series"]
        for j, (s, X, y) in enumerate(zip(cut.train.series, cut.test_x, cut.test_y)):
            pred, model = ours[cut.key][j]
            ep = theirs.get(f"r{j}", {"pred": [np.nan] * len(y),
                                      "model": f"failed: {done[cut.key].get('error') or 'no model'}"})
            for x, yi, po, pt in zip(X, y, pred, ep["pred"]):
                records.append((cut.dataset, cut.param, s.region, tuple(x), float(yi), float(po), float(pt),
                                model, ep["model"]))
    rng = np.random.default_rng(0)
    load_avg = os.getloadavg()[0]
    table = Table(title=f"Extrapolation beyond the largest value of each parameter, real measurements "
                        f"(aggregate: {AGGREGATE} of the runs; load {load_avg:.1f})", title_justify="left")
    for col in ("data set", "parameter", "predictions", "series", "perfcompose median % [95 %]",
                "Extra-P median % [95 %]", "ratio", "> 50 % off (ours / theirs)",
                "closer (ours / theirs / tie)"):
        table.add_column(col, justify="left" if col in ("data set", "parameter") else "right")

    def rows_of(selected: list[tuple]) -> Rows:
        keep = [r for r in selected if r[4] > 0]
        err = lambda p, y: abs(p - y) / y if np.isfinite(p) else np.inf  # noqa: E731
        groups = {k: i for i, k in enumerate(sorted({(r[0], r[1], r[2]) for r in keep}))}
        return Rows(np.array([err(r[5], r[4]) for r in keep]), np.array([err(r[6], r[4]) for r in keep]),
                    np.array([groups[(r[0], r[1], r[2])] for r in keep]))

    per_set = {}
    for name in dict.fromkeys(r[0] for r in records):
        mine = [r for r in records if r[0] == name]
        params = list(dict.fromkeys(r[1] for r in mine))
        for param in params:
            table.add_row(name, param, *summary(rows_of([r for r in mine if r[1] == param]), rng)[0])
        cells, mo, mt = summary(rows_of(mine), rng)
        per_set[name] = (mo, mt)
        if len(params) > 1:
            table.add_row(name, "all", *cells, style="bold")
    pooled = rows_of(records)
    cells, mo, mt = summary(pooled, rng)
    table.add_row("pooled", "all", *cells, style="bold")
    # every data set counts alike, however many predictions it makes
    names = np.array([r[0] for r in records if r[4] > 0])
    weight = np.array([1.0 / np.sum(names == n) for n in names])
    cells_alike, mo_alike, mt_alike = summary(pooled, rng, weight)
    table.add_row("pooled, data sets alike", "all", *cells_alike, style="bold")
    console.print(table)
    worse = [f"{n} ({100 * (a - b):+.1f} points)" for n, (a, b) in per_set.items() if a - b > 0.02]
    console.print(f"goals: pooled median at most 0.8 x Extra-P's: {mo / mt:.2f} (data sets alike "
                  f"{mo_alike / mt_alike:.2f}); data sets more than 2 points worse than Extra-P: "
                  f"{', '.join(worse) if worse else 'none'}")
    skipped = sum(1 for r in records if r[4] <= 0)
    if skipped:
        console.print(f"{skipped} held-out points measured as 0 are left out (no relative error).")
    if args.worst:
        lost = sorted((r for r in records if r[4] > 0),
                      key=lambda r: -(abs(r[5] - r[4]) - abs(r[6] - r[4])) / r[4])[:args.worst]
        worst = Table(title="where perfcompose loses most", title_justify="left")
        for col in ("data set", "param", "series", "point", "measured", "ours", "Extra-P", "our model",
                    "Extra-P's model"):
            worst.add_column(col)
        for r in lost:
            worst.add_row(r[0], r[1], r[2], " ".join(f"{v:g}" for v in r[3]), f"{r[4]:.4g}", f"{r[5]:.4g}",
                          f"{r[6]:.4g}", r[7][:60], r[8][:60])
        console.print(worst)
    if args.csv:
        with args.csv.open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["dataset", "parameter", "series", "coordinate", "measured", "perfcompose", "extrap",
                        "perfcompose_model", "extrap_model"])
            for r in records:
                w.writerow([r[0], r[1], r[2], " ".join(f"{v:g}" for v in r[3]), *r[4:]])


if __name__ == "__main__":
    main()
