"""Run the CLI in-process and classify the outcome: exit 2 with a message, or success with
finite output and no negative time; anything else (a traceback, another exit status, NaN, inf or a
negative time printed) is a failure.

TALLY counts every input the fuzz tests try, by test and class, for the campaign's summary."""
from __future__ import annotations

import os
import re
import traceback
from collections import Counter
from dataclasses import dataclass

from typer.testing import CliRunner

_NON_FINITE = re.compile(r"(?<![\w.])(nan|inf|-inf|zoo|oo)(?![\w(])|\d[ij]\b|\bI\b\*|[+-] I\b", re.IGNORECASE)
#: a time below zero (``-0.5 ms``) other than one shown as why it was discarded (``-0.5 ms < 0``)
_NEGATIVE_TIME = re.compile(r"(?<![\w.])-(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?\s?(?:s|ms|µs|us|ns)"
                            r"(?![\w/])(?!\s*<\s*0)")


#: (test, class) -> inputs: 'accepted' and 'refused' are clean; 'traceback', 'hang', 'garbage'
#: (nan, inf or a negative time printed), 'wrong exit' and 'crash' (a signal) are failures
TALLY: Counter[tuple[str, str]] = Counter()


def count(kind: str) -> None:
    """Count one input of the running test as ``kind``."""
    test = os.environ.get("PYTEST_CURRENT_TEST", "?").rsplit(" ", 1)[0].split("::", 1)[-1]
    TALLY[test, kind] += 1


@dataclass(frozen=True)
class Outcome:
    code: int
    output: str
    error: str | None  # the traceback of an exception that escaped the command

    @property
    def clean(self) -> bool:
        """Exit 2 with an 'error:' message, or exit 0 with no non-finite number in the output."""
        if self.error is not None:
            return False
        if self.code == 2:
            return "error" in self.output.lower() or "invalid" in self.output.lower() or "usage" in self.output.lower()
        if self.code == 0:
            return not _NON_FINITE.search(self.output) and not _NEGATIVE_TIME.search(self.output)
        return False

    @property
    def kind(self) -> str:
        """The class this outcome counts in."""
        if self.error is not None:
            return "hang" if "TimeoutError: an input ran longer" in self.error else "traceback"
        if self.clean:
            return "accepted" if self.code == 0 else "refused"
        return "garbage" if self.code == 0 else "wrong exit"


def cli(*args: str) -> Outcome:
    from perfcompose.cli import app
    from perfcompose.limits import limits, set_limits

    before = limits()
    try:
        result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    finally:  # the root options set the limits of the process; the next test starts from these
        set_limits(before.memory, before.steps)
    error = None
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        error = "".join(traceback.format_exception(result.exception))
    outcome = Outcome(result.exit_code, result.output, error)
    count(outcome.kind)
    return outcome
