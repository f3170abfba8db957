"""The error hierarchy and how an InputError shows file, line, column, caret and hint."""
from __future__ import annotations

import pytest

from perfcompose.errors import (
    DataFormatError,
    FitError,
    InputError,
    ModelError,
    ModelSyntaxError,
    PerfcomposeError,
    UnknownFormatError,
)


@pytest.mark.parametrize("cls", [InputError, ModelSyntaxError, ModelError, DataFormatError,
                                 UnknownFormatError, FitError])
def test_every_error_is_a_perfcompose_error(cls):
    assert issubclass(cls, PerfcomposeError)


@pytest.mark.parametrize("cls", [ModelSyntaxError, DataFormatError])
def test_located_errors_are_input_errors(cls):
    assert issubclass(cls, InputError)


@pytest.mark.parametrize("cls", [ModelError, UnknownFormatError, FitError])
def test_usage_errors_are_not_input_errors(cls):
    assert not issubclass(cls, InputError)


def test_input_error_message_starts_with_file_line_and_column():
    err = InputError("bad thing", path="f.txt", line=3, column=5)
    assert str(err) == "f.txt, line 3, column 5: bad thing"
    assert (err.path, err.line, err.column, err.reason) == ("f.txt", 3, 5, "bad thing")


def test_input_error_shows_source_line_with_caret_under_the_column():
    err = InputError("bad thing", path="f.txt", line=3, column=8, source_line="DATA 1 x 3\n", hint="fix it")
    lines = str(err).split("\n")
    assert lines[0] == "f.txt, line 3, column 8: bad thing"
    assert lines[1] == "    DATA 1 x 3"  # the newline of the source line is dropped
    assert lines[2] == "           ^"
    assert lines[2].index("^") == lines[1].index("x")
    assert lines[3] == "  hint: fix it"


def test_input_error_without_location_is_just_the_message():
    assert str(InputError("plain")) == "plain"


def test_input_error_with_path_only_names_the_file():
    assert str(DataFormatError("empty", path="a.csv")) == "a.csv: empty"


def test_column_without_line_is_not_in_the_location_but_the_caret_is_shown():
    err = ModelSyntaxError("oops", column=3, source_line="abc")
    assert str(err) == "oops\n    abc\n      ^"


def test_source_line_without_column_has_no_caret():
    err = InputError("oops", path="f", line=1, source_line="abc")
    assert "^" not in str(err)
    assert str(err).endswith("\n    abc")


def test_hint_is_kept_as_attribute():
    err = InputError("m", hint="do this")
    assert err.hint == "do this"
    assert str(err) == "m\n  hint: do this"
