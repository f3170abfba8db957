"""The fuzz campaign's summary: after a run with PERFCOMPOSE_FUZZ_EXAMPLES set, the inputs tried
per test and class (see cli_outcome.TALLY)."""
from __future__ import annotations

import os
from typing import Any

from cli_outcome import TALLY

CLASSES = ("accepted", "refused", "traceback", "hang", "garbage", "wrong exit", "crash")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if "PERFCOMPOSE_FUZZ_EXAMPLES" not in os.environ or not TALLY:
        return
    tests = sorted({test for test, _ in TALLY})
    write = terminalreporter.write_line
    write(f"fuzz campaign, seed {os.environ.get('PERFCOMPOSE_FUZZ_SEED', 'default')}: inputs per test and class")
    write(f"{'test':<58}" + "".join(f"{c:>11}" for c in CLASSES))
    for test in tests:
        write(f"{test[:58]:<58}" + "".join(f"{TALLY[test, c]:>11}" for c in CLASSES))
    write(f"{'all':<58}" + "".join(f"{sum(TALLY[t, c] for t in tests):>11}" for c in CLASSES))
