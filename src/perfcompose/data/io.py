"""Reading and writing experiments in every supported format, with the format detected."""
from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Literal

from perfcompose.data import csv_long, extrap_json, extrap_text, perfcompose_json
from perfcompose.data.experiment import Experiment
from perfcompose.errors import DataFormatError, UnknownFormatError

Format = Literal["perfcompose", "csv", "extrap-text", "extrap-json"]

FORMATS: dict[str, ModuleType] = {
    "perfcompose": perfcompose_json,
    "csv": csv_long,
    "extrap-text": extrap_text,
    "extrap-json": extrap_json,
}

_HELP = ("perfcompose reads perfcompose JSON (.json with 'points' or 'series'), CSV in long form (.csv), "
         "Extra-P text (.txt starting with PARAMETER) and Extra-P JSON (.json with 'measurements')")


def detect(path: Path, text: str) -> str:
    """The format of a file, from its content first and its extension second."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            doc = json.loads(text)
        except json.JSONDecodeError:
            return "perfcompose"  # its reader reports the JSON error with line and column
        if isinstance(doc, dict) and ("measurements" in doc or "callpaths" in doc):
            return "extrap-json"
        return "perfcompose"
    first = next((ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")), "")
    if (first.split() or [""])[0] in extrap_text.KEYWORDS:
        return "extrap-text"
    suffix = path.suffix.lower()
    if suffix == ".csv" or ("," in first and "value" in [c.strip() for c in first.split(",")]):
        return "csv"
    if suffix in (".txt", ".extrap"):
        return "extrap-text"
    if suffix == ".json":
        return "perfcompose"
    raise UnknownFormatError(f"{path}: cannot tell the format of this file.\n  {_HELP}")


def format_for_output(path: Path, fmt: str | None = None) -> str:
    """The format to write ``path`` in: given explicitly, or from the extension."""
    if fmt:
        if fmt not in FORMATS:
            raise UnknownFormatError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
        return fmt
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return "csv"
    if suffix in (".txt", ".extrap"):
        return "extrap-text"
    if suffix == ".json":
        return "extrap-json" if path.name.endswith((".extrap.json", "_extrap.json")) else "perfcompose"
    raise UnknownFormatError(f"{path}: cannot tell which format to write from the extension '{suffix}'; "
                             f"name one of {', '.join(FORMATS)} explicitly")


def load(path: str | Path, fmt: str | None = None) -> Experiment:
    """Read an experiment file; the format is detected unless given.

    >>> e = load("examples/qsort.json")  # doctest: +SKIP
    """
    path = Path(path)
    if not path.exists():
        raise DataFormatError("no such file", path=path)
    if path.is_dir():
        raise DataFormatError("is a directory, not an experiment file", path=path)
    try:
        text = path.read_text()
    except UnicodeDecodeError:
        raise UnknownFormatError(f"{path}: not a text file.\n  {_HELP}") from None
    if not text.strip():
        raise DataFormatError("the file is empty", path=path)
    name = fmt or detect(path, text)
    if name not in FORMATS:
        raise UnknownFormatError(f"unknown format {name!r}; choose one of {', '.join(FORMATS)}")
    return FORMATS[name].read(path, text)


def dumps(experiment: Experiment, fmt: str) -> str:
    if fmt not in FORMATS:
        raise UnknownFormatError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return FORMATS[fmt].dumps(experiment)


def save(experiment: Experiment, path: str | Path, fmt: str | None = None) -> str:
    """Write an experiment; the format follows the extension unless given. Returns the format."""
    path = Path(path)
    name = format_for_output(path, fmt)
    path.write_text(dumps(experiment, name))
    return name
