"""The pattern executor: nested patterns compute what a sequential run computes, failures stop
the run cleanly, and the per-element metric is the papers' steady-state time between completions."""
from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable

import numpy as np
import pytest

from perfcompose.bench.tasks import inc, nop, qsort
from perfcompose.compose.parser import parse_term
from perfcompose.compose.terms import Component
from perfcompose.runtime import RunResult, RuntimeTermError, TaskError, plan, run_term, worker_count

FUNCTIONS = {"nop": nop, "inc": inc, "qsort": qsort}


def _elements(k: int = 24, x: int = 500) -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    return [rng.integers(0, 1000, size=x, dtype=np.int32) for _ in range(k)]


def _sequential(term: str, elements: list[np.ndarray], functions: dict = FUNCTIONS) -> list[np.ndarray]:
    names = [t.name for t in parse_term(term).walk() if isinstance(t, Component)]
    out = []
    for e in elements:
        e = e.copy()
        for name in names:
            e = functions[name](e)
        out.append(e)
    return out


def _plus_ten(a: np.ndarray) -> np.ndarray:
    return a + 10


def _sorted(a: np.ndarray) -> np.ndarray:
    return np.sort(a)


#: the tasks of the process-worker tests in NumPy: a worker process that calls a Numba task
#: first loads its compiled code (about 1 s of CPU), which these tests are not about
IN_NUMPY = {"nop": nop, "inc": _plus_ten, "qsort": _sorted}


@pytest.fixture(scope="module")
def forkserver() -> str:
    """The start method of the process-worker tests that are not about the start method: a fork
    server that imports NumPy, SymPy, pytest and perfcompose once, so that each worker is forked
    from it instead of importing them again as a spawned worker does (about 2 s of CPU each)."""
    multiprocessing.get_context("forkserver").set_forkserver_preload(
        ["pytest", "perfcompose.runtime", "perfcompose.bench.tasks", "perfcompose.compose.parser"])
    return "forkserver"


def _executor_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("perfcompose-")]


NESTED = [
    "seq(inc, qsort)",
    "pipe(inc, qsort)",
    "tpool_2(qsort)",
    "pipe(tpool_2(inc), tpool_2(qsort))",
    "tpool_2(pipe(inc, qsort))",
    "tpool_2(tpool_3(inc))",
    "pipe(seq(inc, nop), tpool_3(qsort), nop)",
    "seq(pipe(inc, inc), tpool_2(qsort))",
    "tpool_2(seq(pipe(inc, nop), qsort))",
]


@pytest.mark.parametrize("term", NESTED)
def test_nested_patterns_compute_what_a_sequential_run_computes(term):
    elements = _elements()
    expected = _sequential(term, elements)
    result = run_term(term, [e.copy() for e in elements], FUNCTIONS)
    assert len(result.outputs) == len(elements)
    for got, want in zip(result.outputs, expected):
        np.testing.assert_array_equal(got, want)
    assert not _executor_threads()


@pytest.mark.parametrize("term, workers", [("pipe(inc, tpool_2(qsort))", 3), ("tpool_2(pipe(inc, qsort))", 4),
                                           # the first pool's workers end while the second's still run
                                           ("seq(tpool_2(inc), tpool_2(qsort))", 4),
                                           ("tpool_2(seq(pipe(inc, nop), qsort))", 6)])
def test_process_workers_compute_the_same(term, workers, forkserver):
    elements = _elements(k=8)
    expected = _sequential(term, elements, IN_NUMPY)
    result = run_term(term, [e.copy() for e in elements], IN_NUMPY, workers="processes", start_method=forkserver)
    for got, want in zip(result.outputs, expected):
        np.testing.assert_array_equal(got, want)
    assert result.worker_count == workers
    assert not multiprocessing.active_children()


def test_plan_fuses_sequential_components_into_one_worker():
    node = plan(parse_term("pipe(seq(inc, nop), tpool_3(seq(qsort, inc)))"), FUNCTIONS)
    assert worker_count(node) == 4
    assert node.parts[0].names == ("inc", "nop")


class Boom(ValueError):
    pass


def boom_at_five(a: np.ndarray) -> np.ndarray:
    if int(a[0]) in (5, 15):  # 15: element five after inc
        raise Boom("element five is bad")
    return a


def _numbered(k: int = 200, x: int = 50) -> list[np.ndarray]:
    return [np.full(x, i, dtype=np.int32) for i in range(k)]


@pytest.mark.parametrize("term", ["boom", "pipe(inc, boom, nop)", "tpool_2(pipe(boom, nop))",
                                  "pipe(tpool_2(nop), boom)", "seq(tpool_2(boom), nop)"])
def test_a_failing_task_ends_the_run_with_its_error_within_a_second(term):
    functions = {**FUNCTIONS, "boom": boom_at_five}
    t0 = time.monotonic()
    with pytest.raises(TaskError, match="task 'boom' failed: Boom: element five is bad") as info:
        run_term(term, _numbered(), functions)
    assert time.monotonic() - t0 < 1.0
    assert info.value.component == "boom"
    assert isinstance(info.value.__cause__, Boom)
    assert not _executor_threads()


def test_a_failure_upstream_of_a_full_queue_does_not_hang():
    def slow(a):
        time.sleep(0.002)
        return a

    functions = {"fast": nop, "slow": slow, "boom": boom_at_five}
    t0 = time.monotonic()
    with pytest.raises(TaskError):
        run_term("pipe(fast, slow, boom)", _numbered(400), functions, capacity=1)
    assert time.monotonic() - t0 < 1.0
    assert not _executor_threads()


def test_a_failing_task_in_a_process_worker_reports_its_error():
    # the default start method (spawn)
    functions = {**FUNCTIONS, "boom": boom_at_five}
    with pytest.raises(TaskError, match="Boom: element five is bad") as info:
        run_term("pipe(nop, boom)", _numbered(50), functions, workers="processes")
    assert isinstance(info.value.__cause__, Boom)
    assert "boom_at_five" in info.value.remote_traceback
    assert not multiprocessing.active_children()


def die(a: np.ndarray) -> np.ndarray:
    if int(a[0]) == 3:
        os._exit(7)
    return a


def test_a_process_worker_that_dies_stops_the_run(forkserver):
    with pytest.raises(RuntimeTermError, match="worker process died"):
        run_term("pipe(nop, die)", _numbered(50), {"nop": nop, "die": die}, workers="processes",
                 start_method=forkserver)
    assert not multiprocessing.active_children()


def test_per_element_is_the_steady_state_time_between_completions():
    finished = np.array([100, 300, 400, 500, 600, 700]) * 1000
    r = RunResult("t", "threads", 1, started=finished - 50_000, finished=finished, warmup=2)
    # completions 3..6 after the second: (700 - 300) us over 4 elements
    assert r.per_element == pytest.approx(100e-6)
    assert r.latency == pytest.approx(50e-6)
    assert r.makespan == pytest.approx(650e-6)


class _Overlaps:
    """Sleeping tasks that record how many calls of each run at once, and which tasks ran at the
    same time as which."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now: dict[str, int] = {}
        self.most: dict[str, int] = {}
        self.together: set[tuple[str, str]] = set()

    def task(self, name: str) -> Callable[[np.ndarray], np.ndarray]:
        def run(a: np.ndarray) -> np.ndarray:
            with self.lock:
                self.now[name] = self.now.get(name, 0) + 1
                self.most[name] = max(self.most.get(name, 0), self.now[name])
                self.together.update((min(name, o), max(name, o)) for o, k in self.now.items() if k and o != name)
            time.sleep(0.004)
            with self.lock:
                self.now[name] -= 1
            return a
        return run


@pytest.mark.parametrize("term, most, together", [
    ("a", {"a": 1}, set()),
    ("tpool_2(a)", {"a": 2}, set()),               # two calls at once, never three
    ("pipe(a, b)", {"a": 1, "b": 1}, {("a", "b")}),  # the stages overlap, each one call at a time
    ("seq(a, b)", {"a": 1, "b": 1}, set()),         # one worker: b follows a, never beside it
    ("pipe(tpool_2(a), b)", {"a": 2, "b": 1}, {("a", "b")}),
])
def test_patterns_run_their_tasks_side_by_side_as_written(term, most, together):
    # what tpool_2 halving a stage's time and a pipe taking its slower stage rest on, observed
    # without a clock; their times are benchmarks/executor_patterns.py's (a thread woken late
    # by other work on the cores stretches them)
    seen = _Overlaps()
    result = run_term(term, _numbered(40, 4), {"a": seen.task("a"), "b": seen.task("b")})
    assert len(result.outputs) == 40
    assert seen.most == most and seen.together == together


@pytest.mark.parametrize("term, message", [
    ("tpool_n(inc)", "no thread count"),
    ("mapreduce(map=inc, reduce=nop, m=1, n=2, keys=768, per_key=x)", "distributed engine"),
])
def test_terms_the_executor_cannot_run_are_refused(term, message):
    with pytest.raises(RuntimeTermError, match=message):
        run_term(term, _elements(4), FUNCTIONS)


def test_a_component_without_a_function_is_named():
    with pytest.raises(RuntimeTermError, match="no function for component 'qsort'"):
        run_term(parse_term("pipe(inc, qsort)"), _elements(4), {"inc": inc})


def test_a_run_says_how_long_its_workers_waited_for_a_core(busy_machine):
    def spin(a):
        t = time.thread_time()
        while time.thread_time() - t < 0.002:
            pass
        return a

    stream = [np.zeros(4, dtype=np.int32)] * 12
    r = run_term("pipe(spin, spin)", stream, {"spin": spin}, keep_outputs=False)
    if r.runqueue_wait is None:
        pytest.skip("the kernel does not report runqueue waits")
    assert r.runqueue_wait >= 0
    # more busy processes than cores: the workers have to wait for a core
    with busy_machine():
        busy = run_term("pipe(spin, spin)", stream, {"spin": spin}, keep_outputs=False)
    assert busy.disturbed and busy.runqueue_wait > 0.02 * busy.makespan


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="needs two cores and thread affinity")
def test_each_worker_of_a_pipe_keeps_to_a_core_of_its_own():
    seen: dict[str, set] = {"a": set(), "b": set()}

    def stage(name):
        def f(data):
            seen[name].add(frozenset(os.sched_getaffinity(0)))
            return data
        return f

    functions = {"a": stage("a"), "b": stage("b")}
    run_term("pipe(a, b)", [np.zeros(4)] * 6, functions, keep_outputs=False)
    (a,), (b,) = seen["a"], seen["b"]
    assert len(a) == 1 and len(b) == 1 and a != b
    assert len(os.sched_getaffinity(0)) >= 2  # the caller itself is not pinned
    seen = {"a": set(), "b": set()}
    functions = {"a": stage("a"), "b": stage("b")}
    run_term("pipe(a, b)", [np.zeros(4)] * 6, functions, keep_outputs=False, pin=False)
    assert all(len(next(iter(v))) == len(os.sched_getaffinity(0)) for v in seen.values())
