"""Reading and writing experiments in every supported format, with the format detected."""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from perfcompose.choices import Scaling
from perfcompose.data import (
    csv_long,
    cube,
    extrap3,
    extrap_json,
    extrap_saved,
    extrap_text,
    hatchet_runs,
    json_text,
    perfcompose_json,
)
from perfcompose.data.experiment import Experiment
from perfcompose.data.measurement_lines import JSON_LINES, TALPAS
from perfcompose.errors import DataFormatError, UnknownFormatError
from perfcompose.limits import check_memory

#: the text formats perfcompose reads and writes, by name
FORMATS: dict[str, ModuleType] = {"perfcompose": perfcompose_json, "csv": csv_long, "extrap-text": extrap_text,
                                  "extrap-json": extrap_json}
#: the text formats perfcompose reads and does not write (a directory of CUBE profiles: ``cube``)
READ_ONLY: dict[str, Any] = {"jsonl": JSON_LINES, "talpas": TALPAS, "cube": cube}
#: binary formats, detected by their first bytes before the file is read as text
BINARY: dict[str, ModuleType] = {"extrap-saved": extrap_saved, "extrap3": extrap3}
#: every format perfcompose writes: the text formats and Extra-P's saved experiments
WRITABLE: tuple[str, ...] = (*FORMATS, "extrap-saved")

_HELP = ("perfcompose reads perfcompose JSON (.json with 'points' or 'series'), CSV in long form (.csv), "
         "Extra-P text (.txt starting with PARAMETER), Extra-P JSON (.json with 'measurements'), "
         "Extra-P JSON Lines (.jsonl, one measurement per line), Talpas (one measurement per line, "
         "fields separated by ';'), CUBE4 profiles (a directory of experiment folders with .cubex files), "
         "a folder of runs Hatchet reads (Caliper .cali or JSON, HPCToolkit databases, TAU, cProfile, pyinstrument), "
         "Extra-P's saved experiments (.extra-p) and Extra-P 3 binary experiments")


def unsupported(path: Path, why: str) -> UnknownFormatError:
    """The error for a file in no format perfcompose reads, naming the formats it does read."""
    return UnknownFormatError(f"{path}: format not supported: {why}.\n  {_HELP}")


def detect(path: Path, text: str) -> str:
    """The format of a file, from its content first and its extension second."""
    return _detect(path, text)[0]


def _detect(path: Path, text: str) -> tuple[str, Any]:
    """The format of a file and, for an Extra-P JSON document, its parsed value (read once, handed to
    its reader; else None); several JSON values in a row are no format of ours."""
    if path.suffix.lower() == ".jsonl":
        return "jsonl", None
    found = re.search(r"\S[^\n]*", text)  # the first line that is not blank, from its first character
    first_line = found.group() if found else ""
    if first_line.startswith("{"):
        if JSON_LINES.sniff(first_line) or TALPAS.sniff(first_line):
            return "jsonl" if JSON_LINES.sniff(first_line) else "talpas", None
        try:
            doc = json_text.loads(text)
        except json.JSONDecodeError as exc:
            if exc.msg == "Extra data":
                raise unsupported(path, f"line {exc.lineno} starts a second JSON value, and its lines are not "
                                        "Extra-P JSON Lines or Talpas measurements") from None
            return "perfcompose", None  # its reader reports the JSON error with line and column
        if isinstance(doc, dict) and ("measurements" in doc or "callpaths" in doc):
            return "extrap-json", doc
        return "perfcompose", None
    found = re.search(r"^[^\S\n]*([^#\s][^\n]*)", text, re.MULTILINE)  # ... that is no comment either
    first = found.group(1).strip() if found else ""
    suffix = path.suffix.lower()
    if (first.split() or [""])[0] in extrap_text.KEYWORDS:
        return "extrap-text", None
    if suffix == ".csv" or ("," in first and "value" in [c.strip() for c in first.split(",")]):
        return "csv", None
    if suffix in (".txt", ".extrap", ".json"):
        return "perfcompose" if suffix == ".json" else "extrap-text", None
    raise unsupported(path, "cannot tell the format of this file")


def format_for_output(path: Path, fmt: str | None = None) -> str:
    """The format to write ``path`` in: given explicitly, or from the extension."""
    if fmt:
        if fmt not in WRITABLE:
            raise UnknownFormatError(f"unknown format {fmt!r}; choose one of {', '.join(WRITABLE)}")
        return fmt
    suffix = path.suffix.lower()
    by_suffix = {".extra-p": "extrap-saved", ".csv": "csv", ".txt": "extrap-text", ".extrap": "extrap-text",
                 ".json": "extrap-json" if path.name.endswith((".extrap.json", "_extrap.json")) else "perfcompose"}
    if suffix in by_suffix:
        return by_suffix[suffix]
    raise UnknownFormatError(f"{path}: cannot tell which format to write from the extension '{suffix}'; "
                             f"name one of {', '.join(WRITABLE)} explicitly")


def load(path: str | Path, fmt: str | None = None, *, metric: str | None = None,
         scaling: Scaling = "weak", parameters: Mapping[str, str] | None = None) -> Experiment:
    """Read an experiment file, or a directory of CUBE profiles or of runs Hatchet reads (format
    detected unless given); ``metric`` keeps that metric's series (of CUBE profiles: the one read,
    ``time`` by default); ``scaling`` combines a run's locations (:mod:`perfcompose.data.cube`);
    ``parameters`` locates each parameter in a folder of runs (:mod:`perfcompose.data.hatchet_runs`)."""
    path = Path(path)
    if fmt is not None and fmt not in FORMATS and fmt not in READ_ONLY and fmt not in BINARY:
        raise UnknownFormatError(f"unknown format {fmt!r}; choose one of "
                                 f"{', '.join([*FORMATS, *READ_ONLY, *BINARY])}")
    if not path.exists():
        raise DataFormatError("no such file", path=path)
    if parameters and not (path.is_dir() and hatchet_runs.runs(path)):
        raise DataFormatError("--param names where a run holds a parameter; this is no folder of runs that "
                              "Hatchet reads", path=path, hint="give the folder that holds one profile per run")
    if path.is_dir() or fmt == "cube":
        return _load_directory(path, fmt, metric, scaling, parameters)
    if path.suffix.lower() == ".cubex":
        raise unsupported(path, "a single CUBE profile; give the directory of experiment folders")
    if path.suffix.lower() in hatchet_runs.RUN_FILES:
        raise DataFormatError("is one run; give the folder that holds one profile per configuration", path=path,
                              hint="e.g. runs/ holding 27_cores.cali, 64_cores.cali, ...: perfcompose analyze runs/ "
                                   "--param p=mpi.world.size")
    if not path.is_file():
        raise DataFormatError("not a regular file: a device or a pipe is not read (it may never end)", path=path,
                              hint="copy the data into a file")
    # reading holds the text, its parsed rows and the points: about 10 bytes per byte of file
    check_memory(path.stat().st_size * 10.0, f"reading {path.name} ({path.stat().st_size:,} bytes)")
    if fmt is None:
        with path.open("rb") as f:
            head = f.read(64)
        fmt = next((name for name, module in BINARY.items() if module.sniff(head)), None)
    if fmt in BINARY:
        experiment = BINARY[fmt].read(path)
        return experiment.select(metric=metric) if metric is not None else experiment
    try:
        text = path.read_text()
    except UnicodeDecodeError:
        raise unsupported(path, "not a text file") from None
    if not text.strip():
        raise DataFormatError("the file is empty", path=path)
    with json_text.paused_gc():
        name, doc = (fmt, None) if fmt else _detect(path, text)
        reader = {**FORMATS, **READ_ONLY}[name]
        experiment = extrap_json.read(path, text, doc) if name == "extrap-json" else reader.read(path, text)
        del doc
    return experiment.select(metric=metric) if metric is not None else experiment


def _load_directory(path: Path, fmt: str | None, metric: str | None, scaling: Scaling,
                    parameters: Mapping[str, str] | None) -> Experiment:
    """A directory is read as CUBE profiles, or as runs that Hatchet reads."""
    if fmt not in (None, "cube"):
        raise DataFormatError(f"is a directory; the {fmt} format is a file", path=path)
    if not path.is_dir():
        raise DataFormatError("the CUBE format is a directory of experiment folders, not a file", path=path)
    if fmt is None and not cube.profiles(path) and hatchet_runs.runs(path):
        experiment = hatchet_runs.read(path, parameters, scaling=scaling)
        return experiment.select(metric=metric) if metric is not None else experiment
    if not cube.profiles(path):
        raise DataFormatError("is a directory, and no folder in it holds a CUBE profile (*.cubex)", path=path,
                              hint=_HELP)
    return cube.read(path, metric or "time", scaling=scaling)


def dumps(experiment: Experiment, fmt: str) -> str:
    if fmt not in FORMATS:
        raise UnknownFormatError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return FORMATS[fmt].dumps(experiment)


def save(experiment: Experiment, path: str | Path, fmt: str | None = None) -> str:
    """Write an experiment; the format follows the extension unless given. Returns the format."""
    path = Path(path)
    name = format_for_output(path, fmt)
    if name in FORMATS:
        path.write_text(dumps(experiment, name))
    else:
        path.write_bytes(BINARY[name].dumps(experiment))
    return name
