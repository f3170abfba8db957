"""A composed program as a benchmark target: runs that lost their cores are taken again."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest

from perfcompose.compose.parser import parse_term
from perfcompose.runtime.executor import runqueue_wait_ns
from perfcompose.runtime.target import TermTarget


def _spin(a):
    t = time.thread_time()
    while time.thread_time() - t < 0.001:
        pass
    return a


def test_a_run_that_lost_its_cores_is_taken_again_and_counted():
    if runqueue_wait_ns() is None:
        pytest.skip("the kernel does not report runqueue waits")
    target = TermTarget([parse_term("pipe(spin, spin)")], {"spin": _spin}, lambda x: np.zeros(int(x)),
                        count=8, min_time=0, retry_disturbed=2, retake_budget=10)
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2 * (os.cpu_count() or 1))]
    try:
        time.sleep(0.2)
        t = target.measure({"term": 0, "x": 4})
    finally:
        for h in hogs:
            h.kill()
            h.wait()
    assert t > 0
    assert target.retaken == 2 and target.kept_disturbed == 1


def test_retakes_stop_when_they_cost_more_than_their_budget():
    if runqueue_wait_ns() is None:
        pytest.skip("the kernel does not report runqueue waits")
    target = TermTarget([parse_term("pipe(spin, spin)")], {"spin": _spin}, lambda x: np.zeros(int(x)),
                        count=8, min_time=0, retry_disturbed=3, retake_budget=0.5)
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2 * (os.cpu_count() or 1))]
    try:
        time.sleep(0.2)
        for _ in range(4):
            target.measure({"term": 0, "x": 4})
    finally:
        for h in hogs:
            h.kill()
            h.wait()
    # a machine that stays busy gets a few retakes, not three per run
    assert 1 <= target.retaken < 4 * 3
