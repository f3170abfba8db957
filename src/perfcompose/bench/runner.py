"""Unit performance tests (000 section 4.1): time a target over a parameter grid, resumably.

Every finished point is appended to a JSONL checkpoint with one ``write`` and an ``fsync``, so
an interrupted sweep (Ctrl-C, kill -9) loses no finished point; running the same sweep again
skips what the checkpoint holds and measures only the rest. Points run in a shuffled order, so
slow drift of the machine does not masquerade as scaling; with several rounds the sweep passes
over the whole grid again and again, each pass in a new order, so a burst of other work on the
machine spreads over many points as a little noise instead of bending the curve at a few.
"""
from __future__ import annotations

import importlib
import itertools
import math
import os
import random
import re
import signal
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfcompose.bench.tasks import TASKS
from perfcompose.checkpoint import Checkpoint
from perfcompose.data.experiment import Experiment, Point, Series
from perfcompose.errors import InputError, PerfcomposeError
from perfcompose.limits import check_memory, check_steps
from perfcompose.runtime import others

CHECKPOINT_FORMAT = "perfcompose-checkpoint/1"

#: memory of one grid value held in a coordinate tuple (a float object and its slot)
_BYTES_PER_VALUE = 32


class BenchError(InputError):
    """A sweep that cannot run as asked."""


def parse_values(text: str) -> tuple[float, ...]:
    """``1024:262144:1024`` (start:stop:step, stop included), ``1024:262144`` (powers of two in
    between), ``1,2,4`` (a list) or a single number."""
    try:
        if ":" in text:
            parts = [float(p) for p in text.split(":")]
            if len(parts) == 3:
                start, stop, step = parts
                if not all(math.isfinite(p) for p in parts) or step <= 0 or stop < start:
                    raise ValueError
                if (stop - start) / step > 1e15:  # (a step of 1e-320 makes the count infinite)
                    raise BenchError(f"the grid values {text!r} are more than 1e15 values", hint="give a larger step")
                count = int(round((stop - start) / step)) + 1
                check_memory(count * _BYTES_PER_VALUE, f"the grid values {text!r} ({count:.3g} values)")
                return tuple(start + k * step for k in range(count) if start + k * step <= stop + 1e-9 * step)
            if len(parts) == 2:
                lo, hi = parts
                if not 0 < lo <= hi < math.inf:
                    raise ValueError
                return tuple(sorted({lo, hi} | {2.0 ** k for k in range(int(hi).bit_length()) if 2.0 ** k >= lo}))
            raise ValueError
        values = tuple(float(v) for v in text.split(","))
        if not values or not all(math.isfinite(v) for v in values):
            raise ValueError
        return values
    except ValueError:
        raise BenchError(f"cannot read the values {text!r}",
                         hint="write START:STOP:STEP, LO:HI (powers of two), or a list 1,2,4") from None


def parse_grid(specs: Iterable[str]) -> dict[str, tuple[float, ...]]:
    """``["x=1024:262144:1024", "n=1,2,4"]`` -> ``{"x": (...), "n": (1, 2, 4)}``."""
    grid: dict[str, tuple[float, ...]] = {}
    for spec in specs:
        name, sep, values = spec.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier():
            raise BenchError(f"cannot read the parameter {spec!r}", hint="write NAME=VALUES, e.g. x=1024:65536")
        if name in grid:
            raise BenchError(f"parameter '{name}' given twice")
        grid[name] = parse_values(values)
    points = math.prod(len(v) for v in grid.values())
    check_memory(points * _BYTES_PER_VALUE * (len(grid) + 2), f"a grid of {points:.3g} points")
    return grid


@dataclass(frozen=True)
class Failure:
    """A point whose run failed: the exit code (or exception) and what it said."""

    exit_code: int | None
    message: str


class Target:
    """Something to time at a coordinate; ``measure`` returns seconds or raises ``TargetFailed``."""

    label: str = ""

    def measure(self, point: Mapping[str, float]) -> float:
        raise NotImplementedError

    def details(self) -> list[Any]:
        """What the runs since the last call recorded besides their times (JSON values, one per
        run: a profile), handed over once; a sweep stores them with the visit in its checkpoint."""
        return []


class TargetFailed(Exception):
    """A target's run that gave no time: its :class:`Failure`."""

    def __init__(self, failure: Failure):
        super().__init__(failure.message)
        self.failure = failure


@dataclass
class CallableTarget(Target):
    """A Python callable; ``setup`` (optional) prepares its arguments outside the timed region.

    A call shorter than ``min_time`` is timed in a batch of identical calls (sized once per
    point) and the batch time divided by its length, so that the clock's granularity and the
    cost of reading it do not swamp sub-microsecond work.

    ``retry_preempted``: for a callable that computes on the calling thread only, a timing whose
    wall time exceeds the thread's CPU time by more than 5 % + 2 us lost the core to other work
    mid-call; it is taken again, up to this many times (``preempted`` counts the retakes), and
    the undisturbed timing, or failing that the shortest, is kept. With ``cpu_when_preempted``
    a timing still preempted after every retake is the thread's CPU time instead (for such a
    callable, the time it takes when it keeps its core; ``cpu_kept`` counts them).
    """

    run: Callable[..., Any]
    setup: Callable[..., tuple] | None = None
    label: str = ""
    min_time: float = 20e-6
    retry_preempted: int = 0
    preempted: int = 0
    cpu_when_preempted: bool = False
    cpu_kept: int = 0
    _batch: dict[tuple, int] = field(default_factory=dict, repr=False)

    def _timed(self, args: tuple, kwargs: dict[str, Any], batch: int) -> tuple[int, int]:
        """Wall and thread CPU nanoseconds of ``batch`` calls. A callable that runs threads of its
        own (a BLAS, a library's thread pool) waits for them, not for other programs: where this
        process used more CPU than the calling thread, its CPU time says nothing of the call, and
        the timing counts as preempted only where other programs ran meanwhile
        (:func:`~perfcompose.runtime.others.others_present`); it then returns a CPU time of 0, so
        that it is never kept in place of a wall time."""
        machine, process0 = others.mark(), time.process_time_ns()
        wall, cpu = self._calls(args, kwargs, batch)
        if time.process_time_ns() - process0 > 1.05 * cpu + 2000:
            preempted = others.others_present(machine, 0.02, wall * 1e-9)
            return wall, (0 if preempted else wall)
        return wall, cpu

    def _calls(self, args: tuple, kwargs: dict[str, Any], batch: int) -> tuple[int, int]:
        run = self.run
        if self.setup is not None:
            c0 = time.thread_time_ns()
            t0 = time.perf_counter_ns()
            for _ in range(batch):
                run(*args)
            t1 = time.perf_counter_ns()
            c1 = time.thread_time_ns()
        else:
            c0 = time.thread_time_ns()
            t0 = time.perf_counter_ns()
            for _ in range(batch):
                run(**kwargs)
            t1 = time.perf_counter_ns()
            c1 = time.thread_time_ns()
        return t1 - t0, c1 - c0

    def measure(self, point: Mapping[str, float]) -> float:
        kwargs = {k: (int(v) if float(v).is_integer() else v) for k, v in point.items()}
        key = tuple(sorted(point.items()))
        try:
            args = self.setup(**kwargs) if self.setup is not None else ()
            if key not in self._batch:
                once = self._timed(args, kwargs, 1)[0] * 1e-9
                self._batch[key] = max(1, min(1000, math.ceil(self.min_time / max(once, 1e-9))))
            batch = self._batch[key]
            wall, cpu = self._timed(args, kwargs, batch)
            best, least_cpu = wall, cpu
            for _ in range(self.retry_preempted):
                if wall <= 1.05 * cpu + 2000:
                    best = wall
                    break
                self.preempted += 1
                wall, cpu = self._timed(args, kwargs, batch)
                best, least_cpu = min(best, wall), min(least_cpu, cpu)
            else:
                if self.cpu_when_preempted and wall > 1.05 * cpu + 2000 and 0 < least_cpu < best:
                    self.cpu_kept += 1
                    best = least_cpu
            return best * 1e-9 / batch
        except Exception as exc:  # the target's own failure, reported per point
            raise TargetFailed(Failure(None, f"{type(exc).__name__}: {exc}")) from None


def fill(template: str, point: Mapping[str, float]) -> str:
    """``template`` with ``{name}`` replaced by the point's value (a whole number without ``.0``)."""
    try:
        return template.format(**{k: (int(v) if float(v).is_integer() else v) for k, v in point.items()})
    except KeyError as exc:
        raise BenchError(f"the command uses {{{exc.args[0]}}} but there is no such parameter",
                         hint="give it with --param NAME=VALUES") from None


@dataclass
class CommandTarget(Target):
    """A shell command template such as ``./solver --n {x}``, run by ``/bin/sh -c`` (pipes and
    redirections work) and timed as a whole, the shell's start (about a millisecond) included.
    Its standard output is discarded unread (it may be binary); the end of its standard error is
    kept, as text, for the message of a failed point."""

    template: str
    timeout: float | None = None
    label: str = ""

    def command(self, point: Mapping[str, float]) -> str:
        try:
            return fill(self.template, point)
        except (ValueError, IndexError) as exc:
            raise BenchError(f"cannot fill in the command template: {exc}",
                             hint="write parameters as {x}; a literal brace as {{ or }}") from None

    def measure(self, point: Mapping[str, float]) -> float:
        return run_command(["/bin/sh", "-c", self.command(point)], self.timeout)


def run_command(argv: Sequence[str], timeout: float | None, produces: Path | None = None) -> float:
    """The wall seconds of one run of ``argv`` in a session of its own (killed whole at the
    timeout); a run that cannot start, times out, fails or leaves ``produces`` unwritten is a
    failed run with the end of what it wrote to stderr."""
    t0 = time.perf_counter_ns()
    try:
        proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, start_new_session=True)
    except OSError as exc:
        raise TargetFailed(Failure(None, f"cannot run {argv[0]}: {exc.strerror}")) from None
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the command and everything it started
        proc.communicate()
        raise TargetFailed(Failure(None, f"timed out after {timeout:g} s")) from None
    t1 = time.perf_counter_ns()
    if proc.returncode != 0 or (produces is not None and not produces.exists()):
        raise TargetFailed(Failure(proc.returncode, err[-4000:].decode("utf-8", "replace").strip()[-2000:]))
    return (t1 - t0) * 1e-9


@dataclass
class SweepResult:
    """What a sweep measured: repetitions per coordinate, and the points that failed."""

    parameters: tuple[str, ...]
    values: dict[tuple[float, ...], list[float]]
    failures: dict[tuple[float, ...], Failure] = field(default_factory=dict)
    resumed: int = 0
    skipped_lines: tuple[int, ...] = ()
    #: per coordinate, what each timed run recorded besides its time (see :meth:`Target.details`)
    details: dict[tuple[float, ...], list[Any]] = field(default_factory=dict)

    def experiment(self, metric: str = "time", region: str = "", unit: str = "s", source: str = "") -> Experiment:
        points = tuple(Point(c, tuple(v)) for c, v in sorted(self.values.items()))
        if not points:
            raise PerfcomposeError("no point was measured successfully")
        return Experiment(self.parameters, (Series(metric, points, region, unit),), source=source)


def _visit(rec: Mapping[str, Any]) -> tuple[tuple[float, ...], list[float]] | None:
    """The coordinate and values of a measured-visit record, or None where it is malformed."""
    coord, values = rec.get("coordinate"), rec.get("values")
    if not isinstance(coord, list) or not isinstance(values, list):
        return None
    try:
        point = tuple(float(v) for v in coord)
        times = [float(v) for v in values]
    except (TypeError, ValueError):
        return None
    return None if not all(math.isfinite(v) for v in (*point, *times)) else (point, times)


def _read_checkpoint(store: Checkpoint, header: Mapping[str, Any], details: dict[tuple[float, ...], list[Any]]
                     ) -> tuple[dict[tuple[float, ...], list[float]], dict[tuple[float, ...], int], list[int]]:
    """The values a checkpoint holds per point, how many rounds of each point it holds, and the
    numbers of the lines skipped as corrupt (every good line is kept; a write torn by kill -9 is
    cut off, so its point, that round of it, is measured again); each visit's details are added
    to ``details``."""
    done: dict[tuple[float, ...], list[float]] = {}
    visits: dict[tuple[float, ...], int] = {}
    skipped: list[int] = []
    for line, rec in store.lines():
        if line == 1:
            if rec is None or rec.get("format") != CHECKPOINT_FORMAT:
                raise BenchError("not a perfcompose checkpoint", path=store.path, line=1)
            if any(rec.get(key) != value for key, value in header.items()):
                diff = ", ".join(key for key in header if rec.get(key) != header[key])
                raise BenchError(f"the checkpoint belongs to a different sweep (differs in {diff})",
                                 path=store.path, line=1, hint="use another --out, or --restart to discard it")
            continue
        visit = None if rec is None or "values" not in rec else _visit(rec)
        if visit is None:
            if rec is None or "values" in rec:
                skipped.append(line)
            continue
        coord, values = visit
        done.setdefault(coord, []).extend(values)
        extra = rec.get("details") if rec is not None else None
        if isinstance(extra, list):
            details.setdefault(coord, []).extend(extra)
        visits[coord] = visits.get(coord, 0) + 1
    return done, visits, skipped


def run_sweep(target: Target, grid: Mapping[str, Sequence[float]], *, reps: int, warmup: int,
              checkpoint: Path | None = None, seed: int = 0, restart: bool = False,
              progress: Callable[[int, int, tuple[float, ...]], None] | None = None,
              identity: Mapping[str, Any] | None = None, rounds: int = 1) -> SweepResult:
    """Measure ``target`` at every point of ``grid``, ``rounds`` times over: at each visit
    ``warmup`` untimed runs, then ``reps`` timed (``reps * rounds`` values per point).

    Every round visits the points in a new random order. With a ``checkpoint`` each finished
    visit is appended at once and the sweep resumes from it; ``identity`` (target, options) is
    stored in its first line so a checkpoint is never mixed with another sweep's.
    """
    if reps < 1 or warmup < 0 or rounds < 1:
        raise BenchError("need reps >= 1, rounds >= 1 and warmup >= 0")
    params = tuple(grid)
    coords = list(itertools.product(*grid.values()))
    header = {"format": CHECKPOINT_FORMAT, "parameters": list(params), "reps": reps,
              **({"rounds": rounds} if rounds > 1 else {}), **(identity or {})}
    check_steps(float(len(coords)) * rounds * (reps + warmup), f"{len(coords)} points x {rounds} rounds x "
                f"{reps + warmup} runs")
    details: dict[tuple[float, ...], list[Any]] = {}
    # locked: a second sweep on it is refused, not interleaved
    store = None if checkpoint is None else Checkpoint.open(Path(checkpoint), restart=restart, busy=lambda: BenchError(
        "another perfcompose bench is measuring into this checkpoint", path=Path(checkpoint),
        hint="wait for it to finish (then run again to resume), or use another --out"))
    try:
        done, visits, skipped = ({}, {}, []) if store is None else _read_checkpoint(store, header, details)
        if store is not None and store.empty:
            store.append(header)
        wanted = set(coords)
        result = SweepResult(params, {c: v for c, v in done.items() if c in wanted},
                             resumed=sum(1 for c in done if c in wanted and visits[c] >= rounds),
                             skipped_lines=tuple(skipped), details={c: v for c, v in details.items() if c in wanted})
        plan = []  # (round, coordinate) still to measure, round by round, each round shuffled
        for r in range(rounds):
            todo = [c for c in coords if visits.get(c, 0) <= r]
            random.Random(seed + r).shuffle(todo)
            plan += [(r, c) for c in todo]
        for k, (_r, coord) in enumerate(plan):
            if coord in result.failures:
                continue
            point = dict(zip(params, coord))
            try:
                for _ in range(warmup):
                    target.measure(point)
                target.details()  # the warm-up runs' are not kept
                values = [target.measure(point) for _ in range(reps)]
                recorded = target.details()
            except TargetFailed as exc:
                target.details()
                result.failures[coord] = exc.failure
                result.values.pop(coord, None)
                result.details.pop(coord, None)
                if store is not None:
                    store.append({"coordinate": list(coord), "error": {"exit_code": exc.failure.exit_code,
                                                                      "message": exc.failure.message}})
            else:
                result.values.setdefault(coord, []).extend(values)
                if recorded:
                    result.details.setdefault(coord, []).extend(recorded)
                if store is not None:
                    store.append({"coordinate": list(coord), "values": values,
                                  **({"details": recorded} if recorded else {})})
            if progress is not None:
                progress(k + 1, len(plan), coord)
    finally:
        if store is not None:
            store.close()
    return result


def checkpoint_for(out: Path) -> Path:
    """Where the checkpoint of a sweep writing ``out`` lives."""
    return out.with_name(out.name + ".checkpoint.jsonl")


def resolve_target(spec: str | None, command: str | None, timeout: float | None) -> tuple[Target, dict[str, Any]]:
    """A built-in task name, ``module:function``, or a shell command template."""
    if (spec is None) == (command is None):
        raise BenchError("give a TARGET (built-in task or module:function) or --cmd \"COMMAND {x}\", not both")
    if command is not None:
        if not re.search(r"\{\w+\}", command):
            raise BenchError("the command template names no parameter", hint='e.g. --cmd "./solver --n {x}"')
        return CommandTarget(command, timeout=timeout, label=command), {"target": command}
    assert spec is not None
    if spec in TASKS:
        task = TASKS[spec]
        task.warm()
        return CallableTarget(task.run, task.setup, label=spec), {"target": spec}
    if ":" not in spec:
        raise BenchError(f"unknown target '{spec}'",
                         hint=f"built-in tasks: {', '.join(TASKS)}; or module:function, or --cmd")
    module, func = function_of(spec)
    setup = getattr(func, "setup", None) or getattr(module, f"setup_{spec.partition(':')[2]}", None)
    return CallableTarget(func, setup, label=spec), {"target": spec}


def function_of(spec: str, hint: str | None = None) -> tuple[Any, Callable[..., Any]]:
    """The module and the function ``module:function`` names (``hint``: what to do where it cannot be imported)."""
    module_name, _, func_name = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise BenchError(f"cannot import '{module_name}': {exc}", hint=hint) from None
    func = getattr(module, func_name, None)
    if not callable(func):
        raise BenchError(f"'{module_name}' has no function '{func_name}'")
    return module, func
