"""The lines LogGOPSim's txt2bin scanner accepts, transcribed from txt2bin.re's states (one item
per line; a line starts with a label, a keyword or '}', never with white space; ``tag``, ``cpu``,
``nic`` in that order; a calc takes only ``cpu``; ranks 0..N-1 in order, each closed)."""
from __future__ import annotations

import re

from perfcompose.loggp.goal.schedule import KEYWORDS

_INT = r"[0-9]+"
_ID = r"[a-zA-Z][a-zA-Z0-9_]*"
_WS = r"[ \t]+"
TXT2BIN_LINE = re.compile("|".join([
    r"",
    rf"num_ranks{_WS}{_INT}",
    rf"rank{_WS}{_INT}[ \t]*\{{",
    r"\}",
    rf"{_ID}[ \t]*:[ \t]*(send|recv)[ \t]*{_INT}[ \t]*b[ \t]*(to|from)[ \t]*(-1|{_INT})"
    rf"([ \t]*tag[ \t]*(-1|{_INT}))?([ \t]*cpu[ \t]*{_INT})?([ \t]*nic[ \t]*{_INT})?[ \t]*",
    rf"{_ID}[ \t]*:[ \t]*calc[ \t]*{_INT}([ \t]*cpu[ \t]*{_INT})?[ \t]*",
    rf"{_ID}[ \t]*(requires|irequires)[ \t]*{_ID}[ \t]*",
]))


def accepted_by_txt2bin_grammar(text: str) -> None:
    """Raise AssertionError naming the first line txt2bin's scanner would reject."""
    expected_rank = 0
    num_ranks = None
    for k, line in enumerate(text.split("\n"), 1):
        assert TXT2BIN_LINE.fullmatch(line), f"line {k}: {line!r}"
        if line.startswith("num_ranks"):
            num_ranks = int(line.split()[1])
        elif line.startswith("rank"):
            assert int(line.split()[1]) == expected_rank, f"line {k}: ranks must come in order"
            expected_rank += 1
        elif m := re.match(rf"({_ID})[ \t]*:", line):
            assert m.group(1) not in KEYWORDS, f"line {k}: label {m.group(1)!r} reads as a keyword"
    assert num_ranks is not None and expected_rank == num_ranks, "every rank must be written"
