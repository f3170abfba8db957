"""Shared fixtures of the runtime tests: a machine made busier than it has cores."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

import pytest


@pytest.fixture
def busy_machine() -> Callable[[], AbstractContextManager[None]]:
    """``with busy_machine():`` runs its block with twice as many spinning processes as cores
    (started 0.2 s before the block, ended after it), so that the block's threads wait for a core."""

    @contextmanager
    def busy() -> Iterator[None]:
        hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(2 * (os.cpu_count() or 1))]
        try:
            time.sleep(0.2)
            yield
        finally:
            for h in hogs:
                h.kill()
                h.wait()

    return busy
