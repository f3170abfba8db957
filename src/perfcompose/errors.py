"""The errors perfcompose shows to people: each says where the problem is and what to do.

Every user-facing failure is a :class:`PerfcomposeError`; the CLI prints its message and exits
with status 2, so no traceback reaches the user.
"""
from __future__ import annotations

import errno
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from perfcompose.finite import is_finite_number


class PerfcomposeError(Exception):
    """Base class of every error a user can act on."""


class InputError(PerfcomposeError):
    """A problem in something the user wrote, located by file, line and column where known.

    When the offending source line is known, the message shows it with a caret under the column.
    """

    def __init__(self, message: str, *, path: str | Path | None = None, line: int | None = None,
                 column: int | None = None, source_line: str | None = None, hint: str | None = None):
        self.path, self.line, self.column = path, line, column
        self.reason, self.hint = message, hint
        parts = [str(path)] if path is not None else []
        if line is not None:
            parts += [f"line {line}"] + ([f"column {column}"] if column is not None else [])
        where = ", ".join(parts)
        text = f"{where}: {message}" if where else message
        if source_line is not None:
            text += "\n    " + source_line.rstrip("\n")
            if column is not None:
                text += "\n    " + " " * max(0, column - 1) + "^"
        if hint:
            text += f"\n  hint: {hint}"
        super().__init__(text)


class ModelSyntaxError(InputError):
    """A model expression that cannot be parsed."""


class ModelError(PerfcomposeError):
    """A model used in a way it does not support (missing parameter, not PMNF, not serialisable)."""


class DataFormatError(InputError):
    """A malformed experiment file: missing fields, bad numbers, duplicate points, ..."""


class UnknownFormatError(PerfcomposeError):
    """A file whose format perfcompose cannot recognise."""


class FitError(PerfcomposeError):
    """Data that cannot support the requested fit (too few points, no variation in a parameter)."""


MAX_DEPTH = 200
"""The deepest nesting read in JSON, TOML and terms (brackets inside brackets)."""

#: where a recursion that runs too deep is one reading the input (JSON, TOML, a term, a PAMELA or
#: GOAL text, an experiment file), and so a fault of the input's nesting
_READING = ("/json/", "/tomllib/", "/lark/", "/sympy/parsing/", "/perfcompose/data/", "/perfcompose/compose/parser.py",
            "/perfcompose/expression_reader.py", "/perfcompose/pamela/language/", "/perfcompose/loggp/goal/",
            "/perfcompose/loggp/jsonfile.py", "/perfcompose/checkpoint.py")


def _reading_input(exc: BaseException) -> bool:
    """Whether the recursion that ``exc`` stopped was reading the input (its innermost frames)."""
    frames = traceback.extract_tb(exc.__traceback__)[-50:]
    return any(any(part in frame.filename.replace("\\", "/") for part in _READING) for frame in frames)

_OS_HINTS = {
    "ENOENT": "check the path; a file to be written needs its folder to exist (mkdir -p FOLDER)",
    "ENOTDIR": "a part of the path is a file, not a folder",
    "EISDIR": "give a file, not a folder",
    "EACCES": "choose a file you may read, or for output a folder you may write to",
    "EPERM": "choose a file you may read, or for output a folder you may write to",
    "EROFS": "the file system is read-only: write to another folder",
    "ENOSPC": "free some space or write elsewhere",
    "ENAMETOOLONG": "the file name is too long",
}


def from_exception(exc: BaseException, path: str | Path | None = None) -> PerfcomposeError | None:
    """The located :class:`InputError` for a foreseeable failure of reading or writing user
    files, or None when ``exc`` is a defect of perfcompose (which must still show as one).

    ``path`` names the file being read where the exception itself does not.
    """
    if isinstance(exc, PerfcomposeError):
        return exc
    if isinstance(exc, OSError) and (exc.filename is not None or path is not None):
        code = errno.errorcode.get(exc.errno or 0, "")
        reason = exc.strerror or str(exc)
        return InputError(reason[:1].lower() + reason[1:], path=exc.filename or path,
                          hint=_OS_HINTS.get(code))
    if isinstance(exc, UnicodeDecodeError):
        return InputError(f"not UTF-8 text: byte 0x{exc.object[exc.start]:02x} at offset {exc.start}", path=path,
                          hint="save the file as UTF-8 text")
    if isinstance(exc, RecursionError):
        if not _reading_input(exc):  # perfcompose's own structures, not the input, went too deep
            return PerfcomposeError("what perfcompose built from this input is nested too deeply for it to follow "
                                    "(Python's recursion limit): a limit of perfcompose, not a fault of the input; "
                                    "please report it with the command")
        return InputError(f"the input is nested too deeply (at most {MAX_DEPTH} levels are read)", path=path,
                          hint="flatten the nesting")
    if type(exc).__name__ == "Error" and type(exc).__module__ in ("_csv", "csv"):
        return InputError(f"CSV: {exc}", path=path, hint="a field may hold at most 128 KiB; check the quoting")
    if isinstance(exc, ValueError) and "integer string conversion" in str(exc):
        return InputError("a number has more than 4300 digits", path=path,
                          hint="numbers must be finite doubles (at most about 1.8e308)")
    if isinstance(exc, ValueError) and "is not supported (supported formats:" in str(exc):  # matplotlib
        return InputError(f"cannot write a plot in this format: {exc}", path=path,
                          hint="end the plot's file name in .png, .svg or .pdf")
    if isinstance(exc, MemoryError):
        return InputError("not enough memory for this input", path=path,
                          hint="give a smaller input or grid")
    return None


def finite_result(values: dict[str, float], where: str) -> None:
    """Refuse a computed time that is not a finite number (a model undefined or overflowing at
    the parameter values given) or that is below zero (values outside the model's domain, such as
    a negative count), naming the quantity and the values."""
    for name, value in values.items():
        if not is_finite_number(value):
            raise InputError(f"{name} is not a finite number at {where} (got {value})",
                             hint="the model is undefined or overflows there (division by zero, a huge "
                                  "power); choose other values")
        if value < 0:
            raise InputError(f"{name} is a negative time at {where} (got {value:g})",
                             hint="the values lie outside the model's domain (a negative count or size); "
                                  "choose values for which the program's counts are positive")


@contextmanager
def evaluating(where: str) -> Iterator[None]:
    """``with evaluating(where):`` turns a division by zero or an overflow while evaluating a
    user's model at user's values into a located error naming those values."""
    try:
        yield
    except (ZeroDivisionError, OverflowError) as exc:
        raise InputError(f"the model cannot be evaluated at {where}: {exc}",
                         hint="the model is undefined or overflows there; choose other values") from None
