"""Other programs on the machine, told apart from this process's own threads."""
from __future__ import annotations

import subprocess
import sys
import time

import pytest

from perfcompose.runtime import others

pytestmark = pytest.mark.skipif(others.system_busy() is None, reason="the system does not report its busy time")


def test_a_busy_program_beside_is_other_work():
    before = others.mark()
    busy = subprocess.Popen([sys.executable, "-c", "import time\nt = time.time()\nwhile time.time() - t < 0.4: pass"])
    busy.wait()
    assert others.others_since(before) >= 0.2
    assert others.others_present(before, 0.02, 0.4)


def test_this_process_s_own_work_is_not_other_work(monkeypatch):
    # the machine busy for 1.0 s, of which this process ran 0.9 s: 0.1 s was other programs'
    readings = iter([(100.0, 5.0), (101.0, 5.9)])
    monkeypatch.setattr(others, "mark", lambda children=False: next(readings))
    before = others.mark()
    assert others.others_since(before) == pytest.approx(0.1)
    readings = iter([(100.0, 5.0), (101.0, 5.99)])
    before = others.mark()
    assert not others.others_present(before, 0.02, 1.0)


def test_where_the_system_does_not_say_the_caller_s_own_evidence_decides():
    assert others.others_present(None, 0.02, 1.0)
    assert others.others_since(None) is None


def test_a_callable_with_threads_of_its_own_is_timed_by_the_wall_clock():
    import threading

    from perfcompose.bench.runner import CallableTarget

    def spin(ms: float) -> None:
        end = time.perf_counter() + ms / 1000
        while time.perf_counter() < end:
            pass

    def call(x: int) -> None:  # waits while its own thread computes, as a BLAS's caller does
        worker = threading.Thread(target=spin, args=(20.0,))
        worker.start()
        worker.join()

    target = CallableTarget(call, lambda x: (x,), retry_preempted=3, cpu_when_preempted=True)
    # its own CPU time is near zero: kept in place of the wall time, the call would seem free
    assert target.measure({"x": 1}) >= 0.015
