"""Python programs profiled over a parameter grid, each run's calls as call paths.

``perfcompose profile --param n=1000:100000 -- python script.py {n}`` runs the program under a
profiler (:data:`PROFILERS`) at every point of the grid (repetitions, warm-up, shuffled order and
the resumable checkpoint of :func:`~perfcompose.bench.runner.run_sweep`) and writes one series
per call path (``<module> (script.py:1)->solve (script.py:12)``), the own (exclusive) seconds
of each run, that ``analyze`` reads (and sums over each subtree, run by run). A call path taking
less than :data:`MIN_SHARE` of the run is not followed further: its time counts as its caller's
own, so the program's total stays whole.

``cprofile`` (the standard library's, the default) times every call, but records per function
only its callers, not its call paths: a path's time is apportioned the way gprof does it, a
function's time under one caller split over that caller's own callers in proportion to the time
each spent calling it. Where one function (often a built-in such as ``sum`` or ``sorted``) is
called from several places that differ in what it does there, its callees are split wrongly. The
``exec`` that runs the program also runs each module it imports: those modules appear beside the
program's ``<module>``, not under the line that imports them.
``cprofile-cpu`` is the same, timing the process's CPU time instead of the wall clock: on a
machine shared with other work a run's wall time holds the time it waited for a core, its CPU
time does not (it misses the time the program itself waits, for files or the network).
``pyinstrument`` (``pip install pyinstrument``) samples the whole stack every millisecond: its
call paths are the real ones, its times those of the samples. A recursive call (a function
already on the path) counts as the caller's own time.
"""
from __future__ import annotations

import json
import pstats
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfcompose.bench.runner import BenchError, Target, fill, run_command
from perfcompose.choices import PythonProfiler
from perfcompose.data.experiment import Experiment, Point, Series

#: a call path below this share of the run is folded into its caller
MIN_SHARE = 1e-3
SEPARATOR = "->"

Function = tuple[str, int, str]
#: the files of the code that starts the program (runpy), left out of the call paths
STARTERS = ("<frozen runpy>",)


def profiled_command(argv: Sequence[str], out: Path, profiler: PythonProfiler = "cprofile") -> list[str]:
    """``python script.py 10`` -> ``python -m cProfile -o OUT script.py 10`` (also ``python -m mod``).

    >>> profiled_command(["python3", "-m", "timeit", "1"], Path("p.out"))
    ['python3', '-m', 'cProfile', '-o', 'p.out', '-m', 'timeit', '1']
    """
    if not argv or not Path(argv[0]).name.startswith("python"):
        raise BenchError(f"profile runs Python programs; the command starts with {argv[0] if argv else 'nothing'!r}",
                         hint="write the command after --, starting with the interpreter: -- python script.py {n}")
    return [argv[0], *(a.replace("{out}", str(out)) for a in PROFILERS[profiler].options), *argv[1:]]


def label(function: Function) -> str:
    """``solve (script.py:12)`` for a Python function, the name alone for a built-in."""
    filename, line, name = function
    name = name.replace(SEPARATOR, "-")
    return name if filename == "~" else f"{name} ({Path(filename).name}:{line})"


def call_path_times(stats: Mapping[Function, tuple[Any, ...]], min_share: float = MIN_SHARE) -> dict[str, float]:
    """Each call path's inclusive seconds from a cProfile run's ``pstats.Stats(...).stats``
    (see the module); the roots are the functions called from outside the profile (more calls
    than their profiled callers made: the ``exec`` that runs the program also runs every import)."""
    callees: dict[Function, list[tuple[Function, float, float]]] = {}
    for function, (_, _, _, _, callers) in stats.items():
        for caller, (_, _, own, total) in callers.items():
            callees.setdefault(caller, []).append((function, own, total))
    # a function's row counts (primitive, all) calls; a caller's entry (all, primitive)
    roots = [f for f, row in stats.items() if row[1] > sum(edge[0] for edge in row[4].values())
             and "_lsprof.Profiler" not in f[2]]
    whole = sum(stats[f][3] for f in roots) or 1.0
    exclusive: dict[str, float] = {}
    # (function, its call path, the functions on it, its own seconds on it, the share of its time on it);
    # a root holds all its calls' own time and callees, so a path that calls it again adds nothing
    stack = [(f, _extend("", f), frozenset([f]), stats[f][2], 1.0) for f in roots]
    while stack:
        function, path, on_path, own, weight = stack.pop()
        for callee, callee_own, callee_total in callees.get(function, ()):
            spent = callee_total * weight
            if callee in roots:
                continue
            if callee in on_path or spent < min_share * whole:
                own += spent
                continue
            total = stats[callee][3]
            stack.append((callee, _extend(path, callee), on_path | {callee}, callee_own * weight,
                          weight * callee_total / total if total > 0 else 0.0))
        if path:
            exclusive[path] = exclusive.get(path, 0.0) + own
    inclusive = dict(exclusive)
    for path in sorted(exclusive, key=lambda p: -p.count(SEPARATOR)):
        caller, sep, _ = path.rpartition(SEPARATOR)
        if sep and caller in inclusive:
            inclusive[caller] += inclusive[path]
    return inclusive


def _extend(path: str, function: Function) -> str:
    """The call path ``path`` extended by ``function`` (not by the code that starts the program)."""
    return path if function[0] in STARTERS else (f"{path}{SEPARATOR}{label(function)}" if path else label(function))


def sampled_path_times(doc: Mapping[str, Any], min_share: float = MIN_SHARE) -> dict[str, float]:
    """Each call path's inclusive seconds from pyinstrument's JSON output (its frames' tree; a
    ``[self]`` frame is its parent's own time, which the parent's time holds; the frames of
    ``runpy``, which starts the program, are left out of the paths)."""
    root = doc["root_frame"]
    whole = float(root["time"]) or 1.0
    out: dict[str, float] = {}
    stack: list[tuple[Mapping[str, Any], str]] = [(root, "")]
    while stack:
        frame, caller = stack.pop()
        function = (str(frame.get("file_path_short") or "~"), int(frame.get("line_no") or 0), str(frame["function"]))
        path = _extend(caller, function)
        if path != caller:
            out[path] = out.get(path, 0.0) + float(frame["time"])
        stack.extend((child, path) for child in frame.get("children", ())
                     if child["function"] != "[self]" and float(child["time"]) >= min_share * whole)
    return out


@dataclass(frozen=True)
class Profiler:
    """A profiler run as ``python OPTIONS script ...`` (``{out}`` in them: where it writes), and
    the reader of what it writes."""

    options: tuple[str, ...]
    read: Callable[[Path, float], dict[str, float]]


#: ``python -c`` code that runs a script (or ``-m module``) under cProfile timing the process's CPU
#: time, as ``python -m cProfile`` runs it, and writes the statistics to its first argument
_CPU_LAUNCHER = """import cProfile, os, runpy, sys, time
out, rest = sys.argv[1], sys.argv[2:]
if rest[:1] == ["-m"]:
    sys.argv = rest[1:]
    code = "run_module(name, run_name='__main__', alter_sys=True)"
    names = dict(run_module=runpy.run_module, name=rest[1])
else:
    sys.argv = rest
    sys.path.insert(0, os.path.dirname(os.path.abspath(rest[0])))
    with open(rest[0], "rb") as f:
        code = compile(f.read(), rest[0], "exec")
    names = dict(__file__=rest[0], __name__="__main__", __package__=None, __cached__=None)
profile = cProfile.Profile(time.process_time)
try:
    profile.runctx(code, names, None)
finally:
    profile.dump_stats(out)
"""


def _cprofile(out: Path, share: float) -> dict[str, float]:
    return call_path_times(pstats.Stats(str(out)).stats, share)  # type: ignore[attr-defined]


#: the profilers ``profile`` runs, by name
PROFILERS: dict[PythonProfiler, Profiler] = {
    "cprofile": Profiler(("-m", "cProfile", "-o", "{out}"), _cprofile),
    "cprofile-cpu": Profiler(("-c", _CPU_LAUNCHER, "{out}"), _cprofile),
    "pyinstrument": Profiler(("-m", "pyinstrument", "--renderer", "json", "--outfile", "{out}"),
                             lambda out, share: sampled_path_times(json.loads(out.read_text()), share)),
}


@dataclass
class ProfileTarget(Target):
    """A Python command line (``{n}`` in its arguments filled from the point) run under cProfile;
    a run's time is the whole process's, its details the call paths' inclusive seconds."""

    argv: tuple[str, ...]
    timeout: float | None = None
    label: str = ""
    min_share: float = MIN_SHARE
    profiler: PythonProfiler = "cprofile"
    _recorded: list[dict[str, float]] = field(default_factory=list, repr=False)

    def command(self, point: Mapping[str, float], out: Path) -> list[str]:
        return profiled_command([fill(a, point) for a in self.argv], out, self.profiler)

    def measure(self, point: Mapping[str, float]) -> float:
        with tempfile.TemporaryDirectory(prefix="perfcompose-profile-") as tmp:
            out = Path(tmp) / "run.profile"
            wall = run_command(self.command(point, out), self.timeout, produces=out)
            self._recorded.append(PROFILERS[self.profiler].read(out, self.min_share))
        return wall

    def details(self) -> list[Any]:
        recorded, self._recorded = self._recorded, []
        return recorded


def experiment(parameters: Sequence[str], details: Mapping[tuple[float, ...], Sequence[Mapping[str, float]]],
               source: str = "") -> Experiment:
    """One series ``time`` per call path over the runs' call-path times (inclusive seconds), as
    each path's own (exclusive) seconds: a path that one run at a point followed and another did
    not (it fell under the share there, its time its caller's) takes 0 s in the other, so every
    path has a value from every run at each point where any run followed it, and the sums over
    each subtree that ``analyze`` derives hold run by run."""
    paths: dict[str, dict[tuple[float, ...], list[float]]] = {}
    for coordinate, runs in sorted(details.items()):
        followed = {path: None for times in runs for path in times}
        for times in runs:
            own = exclusive(times)
            for path in [*own, *(p for p in followed if p not in own)]:
                paths.setdefault(path, {}).setdefault(coordinate, []).append(own.get(path, 0.0))
    if not paths:
        raise BenchError("no run was profiled successfully")
    series = tuple(Series("time", tuple(Point(c, tuple(v)) for c, v in points.items()), path, "s")
                   for path, points in paths.items())
    return Experiment(tuple(parameters), series, source=source)


def exclusive(inclusive: Mapping[str, float]) -> dict[str, float]:
    """Each call path's own seconds: its inclusive seconds less its callees' (never below 0).

    >>> exclusive({"a": 3.0, "a->b": 2.0, "a->b->c": 0.5})
    {'a': 1.0, 'a->b': 1.5, 'a->b->c': 0.5}
    """
    out = {path: float(seconds) for path, seconds in inclusive.items()}
    for path, seconds in inclusive.items():
        caller, sep, _ = path.rpartition(SEPARATOR)
        if sep and caller in out:
            out[caller] -= float(seconds)
    return {path: max(0.0, seconds) for path, seconds in out.items()}
