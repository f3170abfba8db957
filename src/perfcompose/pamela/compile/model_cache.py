"""Compiled PAMELA models kept on disk, as Python keeps compiled modules in ``__pycache__``.

An entry (the numeric form, which evaluates without SymPy) is keyed by the model's path, text,
process and ``paper_phi`` and records a hash of every included file; a change makes it stale.
Entries live in ``platformdirs.user_cache_dir("perfcompose")/pamela``; ``PERFCOMPOSE_CACHE_DIR``
names another folder, ``PERFCOMPOSE_CACHE_DIR=off`` turns the cache off.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from platformdirs import user_cache_dir

from perfcompose.pamela.compile.numeric_form import NumericForm, read_numeric_form

if TYPE_CHECKING:
    from perfcompose.pamela.compile.costmodel import CostModel

__all__ = ["cache_folder", "compile_cached", "numeric_form"]

#: changes whenever the compiler's output for the same source may change
_FORMAT = "perfcompose-pamela-numeric/1"


def cache_folder() -> Path | None:
    """Where entries are kept; None when the cache is off."""
    chosen = os.environ.get("PERFCOMPOSE_CACHE_DIR")
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "off", "0", "no") else Path(chosen) / "pamela"
    return Path(user_cache_dir("perfcompose")) / "pamela"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _entry(path: Path, text: str, process: str, paper_phi: bool) -> Path | None:
    folder = cache_folder()
    if folder is None:
        return None
    key = _digest("\n".join((_FORMAT, str(path.resolve()), process, str(paper_phi), text)))
    return folder / f"{key[:40]}.json"


def _fresh(sources: Mapping[str, str]) -> bool:
    """True when every included file still has the text it had when the entry was made."""
    try:
        return all(_digest(Path(name).read_text(encoding="utf-8")) == digest for name, digest in sources.items())
    except (OSError, UnicodeDecodeError):
        return False


def numeric_form(path: Path, process: str = "main", paper_phi: bool = False,
                 quantities: tuple[str, ...] = ("T",)) -> NumericForm | None:
    """The numeric form of the model in ``path`` stating ``quantities`` of ``process``, from the
    file itself or a fresh cache entry; None: the model must be compiled."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None  # the compiler reports it, with its place
    form = read_numeric_form(text)
    if form is not None:
        return form if form.reads(process, quantities) else None
    entry = _entry(path, text, process, paper_phi)
    try:
        record = json.loads(entry.read_text(encoding="utf-8")) if entry is not None else None
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("format") != _FORMAT or not _fresh(record.get("sources", {})):
        return None
    form = read_numeric_form(str(record.get("numeric", "")))
    return form if form is not None and form.reads(process, quantities) else None


def compile_cached(path: Path, process: str = "main", paper_phi: bool = False) -> CostModel:
    """Compile the model in ``path`` and store its numeric form for :func:`numeric_form`."""
    from perfcompose.pamela.compile.costmodel import compile_file

    cm = compile_file(path, paper_phi=paper_phi)
    text = cm.program.text
    entry = _entry(path, text, process, paper_phi)
    if entry is None or process not in cm.processes:
        return cm
    numeric = cm.text(process, everything=True)
    form = read_numeric_form(numeric)
    if form is None or not form.reads(process):
        return cm  # no closed form: the compiler's exact evaluator is needed every time
    record = {"format": _FORMAT, "model": str(path), "process": process,
              "sources": {name: _digest(src) for name, src in cm.program.sources}, "numeric": numeric}
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        partial = entry.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps(record), encoding="utf-8")
        partial.replace(entry)  # whole entries only, whoever reads at the same time
    except OSError:
        pass
    return cm
