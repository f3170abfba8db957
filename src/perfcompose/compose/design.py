"""Design files: a program term and where each of its components' models comes from (TOML).

::

    program = "pipe(tpool_4(qsort), inc, nop)"
    unit = "ns"                      # unit of the component models (default s)
    pipe = "asymptotic"              # or "pointwise"
    x = [1024, 16384, 262144]        # where to predict (default 2^10 ... 2^18)
    threads = 8                      # budget for `perfcompose explore`

    [parameters]                     # values for counts left symbolic, e.g. tpool_n
    n = 4

    [components]
    nop = "5422.97"                  # an expression ...
    inc = { file = "tasks.csv", region = "inc" }   # ... measurements, fitted here ...
    qsort = { target = "qsort", grid = "x=1024:262144", reps = 11 }   # ... or measured now (ns)
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from perfcompose.compose.components import ComponentError, component_model, from_file
from perfcompose.compose.operators import Composer
from perfcompose.compose.parser import parse_term
from perfcompose.compose.terms import Term
from perfcompose.errors import InputError
from perfcompose.model import Model

_TOP_KEYS = ("program", "unit", "pipe", "x", "threads", "parameters", "components", "title")
_COMPONENT_KEYS = ("model", "file", "region", "target", "grid", "reps", "unit")
DEFAULT_X = tuple(float(2 ** k) for k in range(10, 19, 2))


class DesignError(InputError):
    """A design file that cannot be used as written."""


def _locate(raw: str, key: str, after: str | None = None) -> tuple[int | None, int | None, str | None]:
    """Line, column and text of the first ``key = ...`` (after a ``[after]`` header, if given)."""
    lines = raw.splitlines()
    start = 0
    if after is not None:
        for i, ln in enumerate(lines):
            if re.match(rf"\s*\[\s*{re.escape(after)}\s*\]", ln):
                start = i
                break
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
    pipe: str = "asymptotic"
    x: tuple[float, ...] = DEFAULT_X
    parameters: Mapping[str, float] = field(default_factory=dict)
    threads: int | None = None
    title: str = ""
    path: Path | None = None

    @property
    def composer(self) -> Composer:
        return Composer(self.components, pipe=self.pipe)  # type: ignore[arg-type]

    def model(self) -> Model:
        """The composed model of the program."""
        return self.composer(self.program)


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
        raise DesignError(f"not valid TOML: {reason}", path=path, line=line, column=col, source_line=src,
                          hint="see https://toml.io; strings need quotes") from None
    for key in doc:
        if key not in _TOP_KEYS:
            raise _error(path, raw, f"unknown key '{key}'", key, hint="keys: " + ", ".join(_TOP_KEYS))
    if "program" not in doc or not isinstance(doc["program"], str):
        raise _error(path, raw, "the design needs program = \"TERM\"", "program",
                     hint='e.g. program = "pipe(tpool_4(qsort), inc)"')
    unit = doc.get("unit")
    pipe = doc.get("pipe", "asymptotic")
    if pipe not in ("asymptotic", "pointwise"):
        raise _error(path, raw, f"pipe must be \"asymptotic\" or \"pointwise\", got {pipe!r}", "pipe")
    comps_doc = doc.get("components")
    if not isinstance(comps_doc, dict) or not comps_doc:
        raise _error(path, raw, "the design needs a [components] table naming each component's model",
                     "components", hint='e.g. [components]\\nqsort = "1034.17*x*log2(x)"')
    components: dict[str, Model] = {}
    for name, spec in comps_doc.items():
        components[name] = _component(path, raw, name, spec, unit)
    line, col, text = _locate(raw, "program")
    quote = text.find(doc["program"][:1], (col or 1) + len("program")) if text else -1
    program = parse_term(doc["program"], components=components, source=str(path),
                         line=line or 1, column=(quote + 1 if quote >= 0 else 1))
    x = doc.get("x", DEFAULT_X)
    if not isinstance(x, (list, tuple)) or not x or not all(isinstance(v, (int, float)) and v > 0 for v in x):
        raise _error(path, raw, "x must be a list of positive numbers", "x", hint="e.g. x = [1024, 65536]")
    params = doc.get("parameters", {})
    if not isinstance(params, dict) or not all(isinstance(v, (int, float)) for v in params.values()):
        raise _error(path, raw, "[parameters] gives numbers for symbolic counts", "parameters",
                     hint="e.g. [parameters]\\nn = 4")
    threads = doc.get("threads")
    if threads is not None and (not isinstance(threads, int) or threads < 1):
        raise _error(path, raw, "threads must be a positive integer", "threads")
    return Design(program, components, pipe=pipe, x=tuple(float(v) for v in x),
                  parameters={k: float(v) for k, v in params.items()}, threads=threads,
                  title=str(doc.get("title", "")), path=path)


def _component(path: Path, raw: str, name: str, spec: Any, unit: str | None) -> Model:
    base = path.parent
    try:
        if isinstance(spec, str):
            return component_model(name, spec, unit=unit, base=base)
        if not isinstance(spec, dict):
            raise _error(path, raw, f"component '{name}' must be a string or a table", name, "components")
        for key in spec:
            if key not in _COMPONENT_KEYS:
                raise _error(path, raw, f"component '{name}': unknown key '{key}'", key, f"components.{name}",
                             hint="keys: " + ", ".join(_COMPONENT_KEYS))
        cunit = spec.get("unit", unit)
        if sum(k in spec for k in ("model", "file", "target")) != 1:
            raise _error(path, raw, f"component '{name}' needs exactly one of model = \"EXPR\", "
                         "file = \"PATH\" or target = \"TASK\"", name, "components")
        if "model" in spec:
            return component_model(name, str(spec["model"]), unit=cunit)
        if "target" in spec:
            return _measured(path, raw, name, spec)
        file = Path(spec["file"])
        return from_file(name, file if file.is_absolute() else base / file, region=spec.get("region"),
                         unit=cunit)
    except ComponentError as exc:
        if exc.path is not None:
            raise
        line, col, text = _locate(raw, name)
        raise DesignError(exc.reason, path=path, line=line, column=col, source_line=text, hint=exc.hint) from None


def _measured(path: Path, raw: str, name: str, spec: Mapping[str, Any]) -> Model:
    """Measure a benchmark target (built-in task or module:function) and fit it; the sweep is
    checkpointed beside the design, so a second run reuses every finished point."""
    from perfcompose.bench import TASKS, checkpoint_for, parse_grid, resolve_target, run_sweep
    from perfcompose.fit import PMNFFitter

    target = str(spec["target"])
    grid_text = spec.get("grid")
    if grid_text is None and target in TASKS:
        grid = {p: TASKS[target].quick_grid[p] for p in TASKS[target].params} or {"x": (1.0,)}
    elif isinstance(grid_text, str):
        grid = parse_grid(grid_text.split())
    else:
        raise _error(path, raw, f"component '{name}' needs grid = \"x=LO:HI\" for its target", name, "components")
    reps = spec.get("reps", 11)
    if not isinstance(reps, int) or reps < 1:
        raise _error(path, raw, "reps must be a positive integer", "reps", f"components.{name}")
    tgt, identity = resolve_target(target, None, None)
    identity.update(grid={k: list(v) for k, v in grid.items()}, warmup=1)
    out = path.parent / ".perfcompose" / f"{path.stem}-{name}.json"
    result = run_sweep(tgt, grid, reps=reps, warmup=1, checkpoint=checkpoint_for(out), identity=identity)
    result.values = {c: [v * 1e9 for v in vs] for c, vs in result.values.items()}
    exp = result.experiment(region=name, unit="ns", source=f"benchmark {target}")
    model = PMNFFitter(max_terms=1).fit(exp).model_
    return model.with_meta(name=name, unit="ns", source=f"measured {target}")
