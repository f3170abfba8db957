"""Extrapolation on real measurements: perfcompose's PMNF fitter against Extra-P 4.2.5.

    [EXTRAP_REPO=DIR] [EXTRAP_GPR_REPO=DIR] python benchmarks/real_extrapolation.py
        [--extrap-repo DIR] [--gpr-repo DIR] [--measured DIR] [--sets development|held-out|NAME,...]
        [--checkpoint .perfcompose/real_extrapolation.jsonl] [--restart] [--worst N] [--csv FILE]

The corpus (``DATASETS``), each set counted once; the published ones are read in place from a
clone or the git directory of Extra-P's repositories, any branch (nothing is copied):

* ``relearn`` (``EXTRAP_GPR_REPO``, relearn/relearn-125_execution_times/relearn.txt): RELeARN,
  14 timers over processes p (32-512) and neurons per process n (5,000-9,000), 2 runs per point.
  (The folder's run logs add theta as a parameter; their theta = 0.1 slice is this set.)
* ``mpi_collectives`` (``EXTRAP_REPO``, tests/data/mpi_data.csv): the median latency of seven MPI
  collectives under Intel MPI and Open MPI over 32-512 ranks.
* ``mm_cube`` (``EXTRAP_REPO``, tests/data/cubeset/single_parameter): Score-P profiles of a
  matrix multiplication, 4 call paths over the size x (9 values), one run each.
* ``lulesh_cpu`` and ``lulesh_gpu`` (``EXTRAP_REPO`` branch vNext, tests/data/comparison): Extra-P
  archives of LULESH and of its CUDA build over the elements s (5 sizes), 868 and 62 call paths.
* ``lulesh_mpi`` (``EXTRAP_REPO`` branch feature/perf-taint, tests/data/perf_taint/lulesh): Score-P
  profiles of LULESH over p (27-343) and size (25-45), 12 call paths, one value per rank.
* ``lulesh_caliper`` (this project's tests/data/hatchet/mpi_scaling_cali, Thicket's test data):
  Caliper region profiles of LULESH at 27-343 ranks, 45 regions, the average time per rank.
* ``numpy``, ``dense``, ``scipy``, ``codecs``, ``sqlite``, ``pandas``, ``imaging``, ``python``,
  ``textproc``, ``signal``, ``plotting``, ``arrays``, ``stdlib``, ``timeseries``, ``strings``,
  ``hashing``, ``sparse``, ``filters``, ``regex``, ``numerics``, ``stats``, ``graphs``, ``containers``,
  ``compress``, ``formats`` (``--measured``, default
  benchmarks/data/measured): library routines timed here by ``measure_libraries.py`` on a quiet
  machine.

Every set is read as time (the metric ``time``; the MPI latencies in us). For every set and
every parameter with at least 4 values, both fitters model each series on the points below that
parameter's largest value and predict the points at it, from the same training file (Extra-P
text; series measured at other points in a file of their own) and the mean of a point's runs.
Extra-P runs twice on every cut, in its own process: its default modeler, and the configuration
a skilled user picks for the set (``DataSet.skilled``: negative exponents for RELeARN, as
Extra-P's source marks them as the ones used for it; the refining modeler elsewhere). The error
of a prediction is ``|predicted - measured mean| / measured mean`` (points measured as 0 are
left out; a prediction a fitter fails to make counts as an infinite error). The table gives per
set both configurations' medians and, per set, the better of the two with a 95 % bootstrap
interval (series resampled), perfcompose's against it, the share of predictions off by more than
50 % and how often each is the closer; then the development sets (the fitter was tuned on them),
the held-out sets and all sets pooled with every set weighing alike (the headline), and all
predictions pooled. Extra-P's predictions are kept in the checkpoint, so an interrupted run
resumes, and perfcompose is fitted afresh every run, as a user runs it: ``perfcompose fit
TRAIN.txt --aggregate mean --json -``, one process per training file, its models evaluated at the
held-out points.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from collections.abc import Callable
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
from perfcompose.model import Model

sys.path.insert(0, str(Path(__file__).resolve().parent))
from extrap_inputs import EXTRAP_PYTHON, require_extrap  # noqa: E402

RELEARN = "relearn/relearn-125_execution_times"
AGGREGATE = "mean"
MEASURED = Path(__file__).resolve().parent / "data" / "measured"

#: Extra-P's configurations: its modeler and the options set on it (and on the single-parameter
#: modeler a multi-parameter modeler combines)
EXTRAP_CONFIGS: dict[str, tuple[str, dict[str, Any]]] = {
    "default": ("Default", {}),
    "negative exponents": ("Default", {"allow_negative_exponents": True}),
    "refining": ("Refining", {}),
}

# run by Extra-P's Python: per job, model the training file with the job's modeler and options and
# evaluate every model at the held-out coordinates; one JSON line per job, so that the caller can
# checkpoint as it goes
EXTRAP_SIDE = r"""
import json, sys, warnings
warnings.filterwarnings("ignore")
import numpy as np
from extrap.fileio.file_reader.text_file_reader import TextFileReader
from extrap.modelers import single_parameter
from extrap.modelers.model_generator import ModelGenerator
for line in sys.stdin:
    job = json.loads(line)
    out, error = {}, None
    try:
        experiment = TextFileReader().read_experiment(job["file"])
        multi = len(experiment.parameters) > 1
        generator = ModelGenerator(experiment, modeler="Default" if multi else job["modeler"])
        modeler = generator.modeler
        if multi and job["modeler"] != "Default":
            modeler.single_parameter_modeler = single_parameter.all_modelers[job["modeler"]]()
        for target in (modeler, getattr(modeler, "single_parameter_modeler", None)):
            for option, value in job["options"].items():
                if target is not None and hasattr(target, option):
                    setattr(target, option, value)
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
    part: int = 0                      # series measured at other points are a part of their own

    @property
    def key(self) -> str:
        return f"{self.dataset}:{self.param}" + (f"#{self.part}" if self.part else "")

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


# -- reading the measurements ---------------------------------------------------------------------

def _git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True).stdout


def _ref(repo: Path, branch: str) -> str:
    """The branch as the repository names it: a local branch (a fetched git directory) or the
    remote one of a clone."""
    for ref in (branch, f"origin/{branch}"):
        if subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", "-q", ref],
                          capture_output=True).returncode == 0:
            return ref
    raise SystemExit(f"{repo} has no branch {branch}; fetch it (git fetch origin {branch})")


def _file(repo: Path, path: str, branch: str = "HEAD") -> str:
    return _git(repo, "show", f"{_ref(repo, branch)}:{path}").decode(errors="replace")


def _load_from_git(repo: Path, path: str, branch: str = "HEAD", **how: Any) -> Experiment:
    """A file or folder of a branch, read by perfcompose from a temporary copy (``git archive``),
    the stored mean where a file holds statistics instead of runs."""
    archive = _git(repo, "archive", _ref(repo, branch), path)
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(tmp, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))  # type: ignore[arg-type]
        return load(Path(tmp) / path, **how).for_aggregate(AGGREGATE)


def relearn(repo: Path) -> Experiment:
    """RELeARN's 14 timers over p and n, read by perfcompose's Extra-P text reader."""
    return _load_from_git(repo, f"{RELEARN}/relearn.txt", fmt="extrap-text")


def mpi_collectives(repo: Path) -> Experiment:
    """Median latencies of MPI collectives over the ranks (one value per point)."""
    rows: dict[str, list[Point]] = {}
    for row in csv.DictReader(io.StringIO(_file(repo, "tests/data/mpi_data.csv"))):
        rows.setdefault(f"{row['mpi']}/{row['variable']}", []).append(
            Point((float(row["Ranks"]),), (float(row["median"]),)))
    return Experiment(("ranks",), tuple(Series("latency", tuple(p), r, "us") for r, p in rows.items()),
                      source="mpi_data.csv")


def lulesh_caliper(root: Path) -> Experiment:
    """Thicket's LULESH runs at 27-343 ranks (Caliper region profiles, read through Hatchet):
    each region's average time per rank, as time."""
    e = load(root / "tests/data/hatchet/mpi_scaling_cali", metric="Avg time/rank")
    return Experiment(e.parameters, tuple(Series("time", s.points, s.region, s.unit) for s in e.series),
                      source=e.source)


def measured(name: str) -> Callable[[Path], Experiment]:
    """A set measured here by ``measure_libraries.py`` (its Extra-P text file)."""
    return lambda folder: load(folder / f"{name}.txt", "extrap-text")


@dataclass(frozen=True)
class DataSet:
    """A set of real measurements: where it comes from (``repo``: ``extrap``, ``gpr``,
    ``measured`` or ``project``, this repository), how it is read, the Extra-P configuration a
    skilled user picks for it, and whether the fitter was developed on it or it was held out."""

    repo: str
    read: Callable[[Path], Experiment]
    skilled: str
    held_out: bool


def _time(path: str, branch: str) -> Callable[[Path], Experiment]:
    return lambda repo: _load_from_git(repo, path, branch, metric="time")


DATASETS: dict[str, DataSet] = {
    "relearn": DataSet("gpr", relearn, "negative exponents", False),
    "mpi_collectives": DataSet("extrap", mpi_collectives, "refining", False),
    "mm_cube": DataSet("extrap", _time("tests/data/cubeset/single_parameter", "HEAD"), "refining", False),
    "lulesh_cpu": DataSet("extrap", _time("tests/data/comparison/lulesh-cpu_demangled.extra-p", "vNext"),
                          "refining", False),
    "lulesh_gpu": DataSet("extrap", _time("tests/data/comparison/lulesh_with_tags.extra-p", "vNext"),
                          "refining", True),
    "lulesh_mpi": DataSet("extrap", _time("tests/data/perf_taint/lulesh", "feature/perf-taint"),
                          "refining", True),
    "lulesh_caliper": DataSet("project", lulesh_caliper, "refining", True),
    "numpy": DataSet("measured", measured("numpy"), "refining", False),
    "dense": DataSet("measured", measured("dense"), "refining", False),
    # measured here, held out
    **{name: DataSet("measured", measured(name), "refining", True) for name in (
        "scipy", "codecs", "sqlite", "pandas", "imaging", "python", "textproc", "signal", "plotting",
        "arrays", "stdlib", "timeseries", "strings", "hashing", "sparse", "filters", "regex", "numerics",
        "stats", "graphs", "containers", "compress", "formats",
    )},
}


def cuts(name: str, e: Experiment) -> list[Cut]:
    """Per parameter with at least 4 values: train below its largest value, hold out the rest
    (in parts of series measured at the same points)."""
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
        # Extra-P's text format holds one point set: the series measured at other points go apart
        parts: dict[tuple, list[int]] = {}
        for i, t in enumerate(train):
            parts.setdefault(tuple(p.coordinate for p in t.points), []).append(i)
        for part, members in enumerate(parts.values()):
            out.append(Cut(name, param, Experiment(e.parameters, tuple(train[i] for i in members)),
                           tuple(tx[i] for i in members), tuple(ty[i] for i in members), part))
    return out


# -- the fitters ----------------------------------------------------------------------------------

def perfcompose_predictions(cut: Cut) -> list[tuple[np.ndarray, str]]:
    """perfcompose's prediction at the held-out points of every series, and its model: the whole
    ``perfcompose fit TRAIN.txt --aggregate mean --json -`` process a user runs, on the training
    file Extra-P reads, its models evaluated at the held-out points."""
    with tempfile.TemporaryDirectory() as tmp:
        train = Path(tmp) / "train.txt"
        train.write_text(cut.extrap_text())
        proc = subprocess.run([sys.executable, "-m", "perfcompose", "fit", str(train), "--aggregate", AGGREGATE,
                               "--json", "-"], capture_output=True, text=True)
    if proc.returncode != 0:
        why = f"failed: {proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else proc.returncode}"
        return [(np.full(len(X), np.nan), why) for X in cut.test_x]
    fitted = {r["region"]: (Model.from_json(r["model"]), r["text"]) for r in json.loads(proc.stdout)}
    out = []
    for j, X in enumerate(cut.test_x):
        if f"r{j}" not in fitted:
            out.append((np.full(len(X), np.nan), "failed: no model"))
            continue
        model, text = fitted[f"r{j}"]
        at = {p: X[:, k] for k, p in enumerate(cut.train.parameters)}
        out.append((np.broadcast_to(np.asarray(model(**{p: at[p] for p in model.params}), dtype=float),
                                    (len(X),)).copy(), text))
    return out


def extrap_predictions(todo: list[tuple[str, Cut]], done: dict[str, Any], checkpoint: Checkpoint,
                       progress: Progress) -> None:
    """Extra-P's predictions for the (configuration, cut) pairs not in ``done``, one process."""
    if not todo:
        return
    task = progress.add_task("Extra-P 4.2.5", total=len(todo))
    with tempfile.TemporaryDirectory() as tmp:
        jobs, digests = [], {}
        for i, (config, cut) in enumerate(todo):
            path = Path(tmp) / f"cut{i}.txt"
            path.write_text(cut.extrap_text())
            modeler, options = EXTRAP_CONFIGS[config]
            key = f"{config}|{cut.key}"
            digests[key] = cut.digest()
            jobs.append({"key": key, "file": str(path), "modeler": modeler, "options": options,
                         "test": {f"r{j}": X.tolist() for j, X in enumerate(cut.test_x)}})
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        proc = subprocess.Popen([str(EXTRAP_PYTHON), "-c", EXTRAP_SIDE], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True, env=env)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("".join(json.dumps(j) + "\n" for j in jobs))
        proc.stdin.close()
        for line in proc.stdout:
            rec = json.loads(line)
            rec["digest"] = digests[rec["key"]]
            checkpoint.append(rec)
            done[rec["key"]] = rec
            progress.advance(task)
        if proc.wait() != 0:
            sys.exit("Extra-P's modeling failed (its error is above)")


# -- statistics -----------------------------------------------------------------------------------

def _wquantile(values: np.ndarray, weight: np.ndarray, q: float) -> float:
    """The weighted ``q`` quantile: the first value whose cumulative weight reaches that share."""
    order = np.argsort(values, kind="stable")
    cum = np.cumsum(weight[order])
    return float(values[order][min(int(np.searchsorted(cum, q * cum[-1])), len(values) - 1)])


def _wmedian(err: np.ndarray, weight: np.ndarray) -> float:
    """The weighted median (equal weights: the plain median)."""
    return float(np.median(err)) if np.all(weight == weight[0]) else _wquantile(err, weight, 0.5)


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


def _share_off(err: np.ndarray, w: np.ndarray) -> float:
    """The share (%) of predictions off by more than 50 %, each weighing ``w``."""
    return float(100 * np.sum(w * (err > 0.5)) / np.sum(w))


@dataclass(frozen=True)
class Errors:
    """Relative errors of perfcompose and of both Extra-P configurations, one entry per
    prediction, the series each belongs to, its data set's weight, and per data set the
    configuration whose median is lower (``better``)."""

    ours: np.ndarray
    default: np.ndarray
    skilled: np.ndarray
    better: np.ndarray
    group: np.ndarray   # series index (bootstrap cluster)
    weight: np.ndarray

    def cells(self, rng: np.random.Generator) -> tuple[list[str], float, float]:
        """The table's cells, and the medians of perfcompose and of the better configuration."""
        o, b, w = self.ours, self.better, self.weight
        mo, lo_o, hi_o = _median_ci(o, self.group, w, rng)
        mb, lo_b, hi_b = _median_ci(b, self.group, w, rng)
        close = np.isclose(o, b, rtol=1e-6, atol=1e-9)
        return [str(len(o)), str(len(np.unique(self.group))),
                f"{100 * mo:.1f} [{100 * lo_o:.1f}, {100 * hi_o:.1f}]",
                f"{100 * _wmedian(self.default, w):.1f}", f"{100 * _wmedian(self.skilled, w):.1f}",
                f"{100 * mb:.1f} [{100 * lo_b:.1f}, {100 * hi_b:.1f}]",
                f"{mo / mb:.2f}" if mb > 0 else "-",
                f"{_share_off(o, w):.0f} / {_share_off(b, w):.0f}",
                f"{int(np.sum((o < b) & ~close))} / {int(np.sum((b < o) & ~close))} / {int(np.sum(close))}"], mo, mb


def _sets_alike(records: list[tuple]) -> tuple[np.ndarray, np.ndarray]:
    """log(measured / perfcompose's prediction) of the records with both positive, and weights that
    make every data set weigh the same."""
    keep = [r for r in records if r[4] > 0 and np.isfinite(r[5]) and r[5] > 0]
    counts = Counter(r[0] for r in keep)
    return np.array([np.log(r[4] / r[5]) for r in keep]), np.array([1.0 / counts[r[0]] for r in keep])


def trust_band(records: list[tuple], share: float = 0.9) -> tuple[float, float, float] | None:
    """The factors around perfcompose's prediction that hold the central ``share`` of the measured
    values on the development sets (weighed alike), and the percentage of held-out predictions
    (sets alike) inside them: a band calibrated on some data sets and tried on others."""
    dev = [r for r in records if not DATASETS[r[0]].held_out]
    held = [r for r in records if DATASETS[r[0]].held_out]
    ratios, weights = _sets_alike(dev)
    if not len(ratios) or not held:
        return None
    lo, hi = _wquantile(ratios, weights, (1 - share) / 2), _wquantile(ratios, weights, (1 + share) / 2)
    ratios, weights = _sets_alike(held)
    inside = (ratios >= lo) & (ratios <= hi)
    return float(np.exp(lo)), float(np.exp(hi)), 100.0 * float(np.sum(weights * inside) / np.sum(weights))


def errors(records: list[tuple], alike: bool) -> Errors:
    """The errors of these predictions (points measured as 0 left out); ``alike``: every data set
    weighs the same, however many predictions it makes."""
    keep = [r for r in records if r[4] > 0]
    err = lambda p, y: abs(p - y) / y if np.isfinite(p) else np.inf  # noqa: E731
    groups = {k: i for i, k in enumerate(sorted({(r[0], r[1], r[2]) for r in keep}))}
    names = np.array([r[0] for r in keep])
    ours = np.array([err(r[5], r[4]) for r in keep])
    default = np.array([err(r[6]["default"], r[4]) for r in keep])
    skilled = np.array([err(r[6][DATASETS[r[0]].skilled], r[4]) for r in keep])
    better = default.copy()
    for name in set(names):
        mine = names == name
        if np.median(skilled[mine]) < np.median(default[mine]):
            better[mine] = skilled[mine]
    weight = np.array([1.0 / np.sum(names == n) for n in names]) if alike else np.ones(len(keep))
    return Errors(ours, default, skilled, better, np.array([groups[(r[0], r[1], r[2])] for r in keep]), weight)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extrap-repo", type=Path, default=os.environ.get("EXTRAP_REPO"),
                    help="clone (or git directory) of extra-p/extrap; default $EXTRAP_REPO")
    ap.add_argument("--gpr-repo", type=Path, default=os.environ.get("EXTRAP_GPR_REPO"),
                    help="clone (or git directory) of extra-p/extrap-gpr; default $EXTRAP_GPR_REPO")
    ap.add_argument("--measured", type=Path, default=MEASURED,
                    help="folder of the sets measured by measure_libraries.py")
    ap.add_argument("--sets", default=",".join(DATASETS),
                    help="comma-separated data sets, or 'development' or 'held-out'")
    ap.add_argument("--checkpoint", type=Path, default=Path(".perfcompose/real_extrapolation.jsonl"))
    ap.add_argument("--restart", action="store_true", help="forget Extra-P's predictions kept so far")
    ap.add_argument("--worst", type=int, default=0, help="list the N predictions perfcompose loses most")
    ap.add_argument("--csv", type=Path, help="write every prediction to this CSV file")
    args = ap.parse_args()
    console = Console()
    require_extrap(console)
    repos = {"extrap": args.extrap_repo, "gpr": args.gpr_repo, "measured": args.measured,
             "project": Path(__file__).resolve().parent.parent}
    roles = {"development": [n for n, d in DATASETS.items() if not d.held_out],
             "held-out": [n for n, d in DATASETS.items() if d.held_out]}
    sets = [n for s in args.sets.split(",") if s for n in roles.get(s, [s])]
    unknown = [s for s in sets if s not in DATASETS]
    if unknown:
        sys.exit(f"unknown data set(s) {', '.join(unknown)}; choose from {', '.join(DATASETS)}, "
                 "development or held-out")
    all_cuts: list[Cut] = []
    for name in sets:
        where = repos[DATASETS[name].repo]
        if where is None:
            variable = "EXTRAP_REPO" if DATASETS[name].repo == "extrap" else "EXTRAP_GPR_REPO"
            console.print(f"[yellow]{name} skipped: set {variable} (or pass the repository)[/]")
            continue
        all_cuts += cuts(name, DATASETS[name].read(Path(where)))
    configs = lambda cut: ("default", DATASETS[cut.dataset].skilled)  # noqa: E731
    with Checkpoint.open(args.checkpoint, restart=args.restart,
                         busy=lambda: RuntimeError(f"{args.checkpoint} is in use by another run")) as checkpoint:
        done = {rec["key"]: rec for _, rec in checkpoint.lines() if rec is not None and "key" in rec}
        todo = [(c, cut) for cut in all_cuts for c in configs(cut)
                if f"{c}|{cut.key}" not in done or done[f"{c}|{cut.key}"].get("digest") != cut.digest()]
        with Progress(console=console, transient=True) as progress:
            extrap_predictions(todo, done, checkpoint, progress)
            task = progress.add_task("perfcompose", total=len(all_cuts))
            ours = {}
            for cut in all_cuts:
                ours[cut.key] = perfcompose_predictions(cut)
                progress.advance(task)
    records = []   # (dataset, param, region, coordinate, measured, ours, Extra-P's by configuration,
    #                 our model, Extra-P's models by configuration)
    for cut in all_cuts:
        for j, (s, X, y) in enumerate(zip(cut.train.series, cut.test_x, cut.test_y)):
            pred, model = ours[cut.key][j]
            theirs = {}
            for c in configs(cut):
                rec = done[f"{c}|{cut.key}"]
                theirs[c] = rec["series"].get(f"r{j}", {"pred": [np.nan] * len(y),
                                                        "model": f"failed: {rec.get('error') or 'no model'}"})
            for i, (x, yi, po) in enumerate(zip(X, y, pred)):
                records.append((cut.dataset, cut.param, s.region, tuple(x), float(yi), float(po),
                                {c: float(t["pred"][i]) for c, t in theirs.items()}, model,
                                {c: t["model"] for c, t in theirs.items()}))
    rng = np.random.default_rng(0)
    load_avg = os.getloadavg()[0]
    table = Table(title=f"Extrapolation beyond the largest value of each parameter, real measurements "
                        f"(aggregate: {AGGREGATE} of the runs; load {load_avg:.1f})", title_justify="left")
    for col in ("data set", "role", "Extra-P skilled", "predictions", "series", "perfcompose median % [95 %]",
                "Extra-P default median %", "Extra-P skilled median %", "Extra-P better median % [95 %]",
                "ratio to better", "> 50 % off % (ours / better)", "closer (ours / better / tie)"):
        table.add_column(col, justify="left" if col in ("data set", "role", "Extra-P skilled") else "right")
    per_set = {}
    for name in dict.fromkeys(r[0] for r in records):
        cells, mo, mb = errors([r for r in records if r[0] == name], alike=False).cells(rng)
        per_set[name] = (mo, mb)
        table.add_row(name, "held out" if DATASETS[name].held_out else "development", DATASETS[name].skilled,
                      *cells)
    headline = None
    for label, chosen in (("development", [n for n in per_set if not DATASETS[n].held_out]),
                          ("held out", [n for n in per_set if DATASETS[n].held_out]), ("all", list(per_set))):
        if not chosen or (label != "all" and len(chosen) == len(per_set)):
            continue
        e = errors([r for r in records if r[0] in chosen], alike=True)
        cells, mo, mb = e.cells(rng)
        table.add_row(f"pooled, {len(chosen)} sets alike", label, "per set", *cells, style="bold")
        if label == "all":
            headline = (mo, mb, _share_off(e.ours, e.weight), _share_off(e.better, e.weight))
    cells, _, _ = errors(records, alike=False).cells(rng)
    table.add_row("pooled, predictions alike", "all", "per set", *cells)
    console.print(table)
    if headline:
        mo, mb, so, sb = headline
        worse = [f"{n} ({100 * (a - b):+.1f} points)" for n, (a, b) in per_set.items() if a - b > 0.01]
        console.print(f"goals: pooled median, sets alike, at most 0.8 x the better Extra-P's: {mo / mb:.2f}; "
                      f"sets more than 1 point worse than it: {', '.join(worse) if worse else 'none'}; "
                      f"share off by more than 50 % {so:.0f} % against {sb:.0f} %")
    band = trust_band(records)
    if band:
        lo, hi, covered = band
        console.print(f"how far to trust one step beyond the data: on the development sets (alike) 90 % of "
                      f"perfcompose's predictions lie within x{lo:.2f} to x{hi:.2f} of the measured value; that "
                      f"band holds {covered:.1f} % of the held-out predictions (sets alike)")
    skipped = sum(1 for r in records if r[4] <= 0)
    if skipped:
        console.print(f"{skipped} held-out points measured as 0 are left out (no relative error).")
    if args.worst:
        best = lambda r: min(abs(v - r[4]) if np.isfinite(v) else np.inf for v in r[6].values())  # noqa: E731
        lost = sorted((r for r in records if r[4] > 0), key=lambda r: -(abs(r[5] - r[4]) - best(r)) / r[4])[:args.worst]
        worst = Table(title="where perfcompose loses most (against the closer Extra-P configuration)",
                      title_justify="left")
        for col in ("data set", "param", "series", "point", "measured", "ours", "Extra-P", "our model",
                    "Extra-P's model"):
            worst.add_column(col)
        for r in lost:
            c = min(r[6], key=lambda k: abs(r[6][k] - r[4]) if np.isfinite(r[6][k]) else np.inf)
            worst.add_row(r[0], r[1], r[2][-40:], " ".join(f"{v:g}" for v in r[3]), f"{r[4]:.4g}", f"{r[5]:.4g}",
                          f"{r[6][c]:.4g} ({c})", r[7][:60], r[8][c][:60])
        console.print(worst)
    if args.csv:
        with args.csv.open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["dataset", "parameter", "series", "coordinate", "measured", "perfcompose",
                        *(f"extrap_{c}" for c in EXTRAP_CONFIGS), "perfcompose_model"])
            for r in records:
                w.writerow([r[0], r[1], r[2], " ".join(f"{v:g}" for v in r[3]), r[4], r[5],
                            *(r[6].get(c, "") for c in EXTRAP_CONFIGS), r[7]])


if __name__ == "__main__":
    main()
