"""Design files: a program term and where each of its components' models comes from (TOML).

::

    program = "pipe(tpool_4(qsort), inc, nop)"
    unit = "ns"                      # unit of components whose source states none (default s)
    pipe = "pointwise"               # or "asymptotic", the papers' max by order in x
    x = [1024, 16384, 262144]        # where to predict (default 2^10 ... 2^18)
    threads = 8                      # budget for `perfcompose explore`

    [parameters]                     # values for parameters left symbolic, e.g. tpool_n
    n = 4

    [components]
    nop = "5422.97"                  # an expression ...
    inc = { file = "tasks.csv", region = "inc" }   # ... measurements, fitted here ...
    qsort = { target = "qsort", grid = "x=1024:262144", reps = 11 }   # ... measured now (ns) ...
    mrm = { pamela = "mrm.pam", bind = { N = "x", P = 4 }, unit = "us" }   # ... a PAMELA model ...
    halo = { loggp = "exchange.json", params = "loggp.json" }             # ... a LogGP program ...
    farm = { skeleton = "runtimes.csv", bind = { n = "x", p = 8 } }       # ... or a skeleton forecast
"""
from __future__ import annotations

import re
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfcompose.choices import PIPE_RULES
from perfcompose.compose.components import SOURCES, ComponentError, component_model, from_table, undeclared_names
from perfcompose.compose.operators import DEFAULT_PIPE
from perfcompose.compose.parser import parse_term
from perfcompose.compose.terms import Term, symbolic_counts
from perfcompose.errors import InputError
from perfcompose.model import Model

_TOP_KEYS = ("program", "unit", "pipe", "x", "threads", "parameters", "components", "title")
DEFAULT_X = tuple(float(2 ** k) for k in range(10, 19, 2))


class DesignError(InputError):
    """A design file that cannot be used as written."""


def _locate(raw: str, key: str, after: str | None = None) -> tuple[int | None, int | None, str | None]:
    """Line, column and text of the first ``key = ...`` (after a ``[after]`` header, if given)."""
    lines = raw.splitlines()
    start = 0 if after is None else next(
        (i for i, ln in enumerate(lines) if re.match(rf"\s*\[\s*{re.escape(after)}\s*\]", ln)), 0)
    pattern = re.compile(rf"^(\s*)({re.escape(key)})\s*=|[{{,]\s*({re.escape(key)})\s*=")
    for i in range(start, len(lines)):
        m = pattern.search(lines[i])
        if m:
            col = (m.start(2) if m.group(2) else m.start(3)) + 1
            return i + 1, col, lines[i]
    return None, None, None


@dataclass(frozen=True)
class Design:
    """A program term with the models of its components, read from a design file."""

    program: Term
    components: Mapping[str, Model]
    pipe: str = DEFAULT_PIPE
    x: tuple[float, ...] = DEFAULT_X
    parameters: Mapping[str, float] = field(default_factory=dict)
    threads: int | None = None
    title: str = ""
    path: Path | None = None
    #: what the reader noticed without refusing the design (a name in an expression that is no
    #: parameter of the design), each located in the file
    notes: tuple[str, ...] = ()


def _error(path: Path, raw: str, message: str, key: str | None = None, after: str | None = None,
           hint: str | None = None) -> DesignError:
    line, col, text = _locate(raw, key, after) if key else (None, None, None)
    return DesignError(message, path=path, line=line, column=col, source_line=text, hint=hint)


def load_design(path: Path | str) -> Design:
    """Read a design file; every error names the file, the line and what to write instead."""
    path = Path(path)
    try:
        raw = path.read_text()
    except FileNotFoundError:
        raise DesignError("no such design file", path=path) from None
    except UnicodeDecodeError:
        raise DesignError("not a text file", path=path) from None
    try:
        doc = tomllib.loads(raw)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        line, col = (int(m.group(1)), int(m.group(2))) if m else (None, None)
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        src = raw.splitlines()[line - 1] if line and line <= len(raw.splitlines()) else None
        if path.suffix.lower() != ".toml":
            raise DesignError(f"not a design file: {path.name} is not TOML ({reason})", path=path, line=line,
                              column=col, source_line=src,
                              hint="predict reads a design file (TOML) naming the program and its components, "
                                   "e.g. examples/designs/pipeline.toml; to fit measurements: perfcompose fit "
                                   + path.name) from None
        raise DesignError(f"not valid TOML: {reason}", path=path, line=line, column=col, source_line=src,
                          hint="see https://toml.io; strings need quotes; a design file looks like "
                               "examples/designs/pipeline.toml") from None
    except RecursionError:
        raise DesignError("not a design: the TOML is nested too deeply", path=path) from None
    for key in doc:
        if key not in _TOP_KEYS:
            raise _error(path, raw, f"unknown key '{key}'", key, hint="keys: " + ", ".join(_TOP_KEYS))
    if "program" not in doc or not isinstance(doc["program"], str):
        raise _error(path, raw, "the design needs program = \"TERM\"", "program",
                     hint='e.g. program = "pipe(tpool_4(qsort), inc)"')
    unit = doc.get("unit")
    pipe = doc.get("pipe", DEFAULT_PIPE)
    if pipe not in PIPE_RULES:
        raise _error(path, raw, f"pipe must be one of {', '.join(PIPE_RULES)}, got {pipe!r}", "pipe")
    comps_doc = doc.get("components")
    if not isinstance(comps_doc, dict) or not comps_doc:
        raise _error(path, raw, "the design needs a [components] table naming each component's model",
                     "components", hint='e.g. [components]\\nqsort = "1034.17*x*log2(x)"')
    if unit is not None and not isinstance(unit, str):
        raise _error(path, raw, "unit must be a string such as \"ns\"", "unit")
    components = {name: _component(path, raw, name, spec, unit) for name, spec in comps_doc.items()}
    line, col, text = _locate(raw, "program")
    quote = text.find(doc["program"][:1], (col or 1) + len("program")) if text else -1
    program = parse_term(doc["program"], components=components, source=str(path),
                         line=line or 1, column=(quote + 1 if quote >= 0 else 1))
    x = doc.get("x", DEFAULT_X)
    if not isinstance(x, (list, tuple)) or not x or not all(isinstance(v, (int, float)) and 0 < v <= sys.float_info.max
                                                            for v in x):
        raise _error(path, raw, "x must be a list of positive numbers", "x", hint="e.g. x = [1024, 65536]")
    params = doc.get("parameters", {})
    if not isinstance(params, dict) or not all(isinstance(v, (int, float)) and 0 < v <= sys.float_info.max
                                               for v in params.values()):
        raise _error(path, raw, "[parameters] gives positive finite numbers for symbolic counts", "parameters",
                     hint="e.g. [parameters]\\nn = 4")
    threads = doc.get("threads")
    if threads is not None and (not isinstance(threads, int) or threads < 1):
        raise _error(path, raw, "threads must be a positive integer", "threads")
    return Design(program, components, pipe=pipe, x=tuple(float(v) for v in x),
                  parameters={k: float(v) for k, v in params.items()}, threads=threads,
                  title=str(doc.get("title", "")), path=path,
                  notes=_undeclared_notes(path, raw, components, ("x", *params, *symbolic_counts(program))))


def _undeclared_notes(path: Path, raw: str, components: Mapping[str, Model], declared: tuple[str, ...]
                      ) -> tuple[str, ...]:
    """A located note per expression component that uses a name the design does not declare."""
    notes = []
    for name, unknown in undeclared_names(components, declared).items():
        line, col, text = _locate(raw, name, "components")
        if text is not None:  # the caret under the first such name in the expression
            start = text.find("=", (col or 1) - 1) + 1
            at = re.search(rf"(?<!\w){re.escape(unknown[0])}(?!\w)", text[start:])
            col = start + at.start() + 1 if at else col
        some = len(unknown) > 1
        names = ", ".join(f"'{u}'" for u in unknown)
        declared_text = ", ".join(dict.fromkeys(declared))
        # the name as a TOML key: bare where TOML allows it (ASCII letters, digits, _ and -), else quoted
        key = unknown[0] if re.fullmatch(r"[A-Za-z0-9_-]+", unknown[0]) else f'"{unknown[0]}"'
        notes.append(str(DesignError(
            f"component '{name}': {names} {'are' if some else 'is'} not {'parameters' if some else 'a parameter'} "
            f"of the design ({declared_text}); the expression keeps {'them' if some else 'it'} as "
            f"{'symbols' if some else 'a symbol'}", path=path, line=line, column=col, source_line=text,
            hint=f"give {'each' if some else 'it'} a value under [parameters] ({key} = 4), "
                 "or correct the name if it is a misspelling of one")))
    return tuple(notes)


def _component(path: Path, raw: str, name: str, spec: Any, unit: str | None) -> Model:
    base = path.parent
    try:
        if isinstance(spec, str):
            return component_model(name, spec, unit=unit, base=base)
        if not isinstance(spec, dict):
            raise _error(path, raw, f"component '{name}' must be a string or a table", name, "components",
                         hint="a table names its source: " + ", ".join(f"{k} = ..." for k in SOURCES))
        return from_table(name, spec, base=base, unit=unit, stem=path.stem)
    except ComponentError as exc:
        if exc.path is not None and exc.path != path:
            raise
        line, col, text = _locate(raw, exc.key, f"components.{name}") if exc.key else (None, None, None)
        if line is None or not _within(raw, line, name):
            line, col, text = _locate(raw, name, "components")
        raise DesignError(exc.reason, path=path, line=line, column=col, source_line=text, hint=exc.hint) from None


def _within(raw: str, line: int, name: str) -> bool:
    """Whether ``line`` belongs to component ``name`` (its inline table or its own [components.name])."""
    lines = raw.splitlines()
    text = lines[line - 1]
    if re.match(rf"\s*{re.escape(name)}\s*=", text):
        return True
    for k in range(line - 1, -1, -1):
        header = re.match(r"\s*\[\s*([^\]]+?)\s*\]", lines[k])
        if header:
            return header.group(1) == f"components.{name}"
    return False
