"""tools/check_types.py: per-module mypy error counts held to a baseline that may only shrink."""
import importlib.util
from collections import Counter
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location("check_types", Path(__file__).parents[2] / "tools" / "check_types.py")
check_types = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(check_types)

OUTPUT = """\
src/perfcompose/a.py:3: error: Incompatible types in assignment  [assignment]
src/perfcompose/a.py:3: note: a note is not an error
src/perfcompose/a.py:9:5: error: Name "x" is not defined  [name-defined]
src/perfcompose/b.py:1: error: Missing return statement  [return]
"""


def test_errors_are_counted_per_module_and_notes_are_not():
    assert check_types.count_errors(OUTPUT) == Counter({"src/perfcompose/a.py": 2, "src/perfcompose/b.py": 1})


def test_a_module_over_its_baseline_or_missing_from_it_fails():
    over, lower = check_types.compare(Counter({"a.py": 3, "new.py": 1}), {"a.py": 2})
    assert over == ["a.py: 3 type errors, baseline allows 2", "new.py: 1 type errors, baseline allows 0"]
    assert lower == []


def test_a_module_under_its_baseline_is_named_and_lowering_never_raises_a_count():
    counts = Counter({"a.py": 1, "c.py": 5})
    over, lower = check_types.compare(counts, {"a.py": 2, "b.py": 4, "c.py": 5})
    assert over == [] and lower == ["a.py: baseline 2, now 1", "b.py: baseline 4, now 0"]
    assert check_types.lowered(Counter({"a.py": 1, "c.py": 9}), {"a.py": 2, "b.py": 4, "c.py": 5}) == \
        {"a.py": 1, "c.py": 5}
