"""Where component models come from: every source perfcompose knows, each turned into a Model.

On the command line, ``-c NAME=SPEC``: an expression (``1034.17*x*log2(x)``), a saved model or
model record (``perfcompose fit --json``, ``pamela compile --json``, ``skeleton forecast --json``,
``loggp simulate --model-json``), a PAMELA model ``FILE.pam[:PROCESS]``, or measurements
``FILE[:REGION]`` fitted with the PMNF fitter. In a design file, a component is a string (the
same) or a table naming its source by one key — ``model``, ``file``, ``target``, ``pamela``,
``loggp`` or ``skeleton`` — with that source's options, and the keys every source shares:
``unit`` (the unit of a source that states none), ``bind`` (the source's parameters in the
design's terms) and ``roles`` (what the source's parameters mean).
"""
from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from perfcompose.data import load
from perfcompose.errors import InputError, ModelError, ModelSyntaxError, PerfcomposeError
from perfcompose.fit import PMNFFitter
from perfcompose.fit.extrap_models import saved_model_sets
from perfcompose.fit.uncertainty import with_uncertainty
from perfcompose.loggp.options import LogGPFiles, LogGPOptions, LogGPParameters
from perfcompose.loggp.params import given_members, given_params
from perfcompose.loggp.source import LogGPSource
from perfcompose.loggp.steps.template import read_template
from perfcompose.model import FIT_FORMAT, MODEL_FORMAT, Model
from perfcompose.option_fields import default_of, design_keys, key_of, value_kind
from perfcompose.pamela import compile_file
from perfcompose.pamela.compile.costmodel import model_from_record
from perfcompose.pamela.options import ModelOptions
from perfcompose.prediction_result import PREDICTION_FORMAT
from perfcompose.skeleton_options import ForecastOptions, MethodChoice, SkeletonShape
from perfcompose.units import ROLES, check_unit

__all__ = ["ComponentError", "SOURCES", "COMMON_KEYS", "CONVENTIONAL_PARAMETERS", "component_model", "from_file",
           "from_table", "parse_component", "pamela_model", "bind_model", "undeclared_names"]

LOGGP_FORMAT = "perfcompose-loggp-model/1"
SKELETON_FORMAT = "perfcompose-skeleton-model/1"
PAMELA_FORMAT = "perfcompose-pamela-model/1"


class ComponentError(InputError):
    """A component that cannot be loaded; ``key`` names the design-file key at fault, if any."""

    def __init__(self, message: str, *, key: str | None = None, **where: Any):
        super().__init__(message, **where)
        self.key = key


#: the keys every component table may have, besides its source's
COMMON_KEYS = ("unit", "bind", "roles")

#: each source's key (which names it) and the options it takes
SOURCES: dict[str, tuple[str, ...]] = {
    "model": (),
    "file": ("region", "model_set", "metric"),
    "target": ("grid", "reps"),
    "pamela": ("process",),
    "loggp": (*design_keys(LogGPFiles), *design_keys(LogGPParameters), *design_keys(LogGPOptions)),
    "skeleton": (*design_keys(SkeletonShape), *design_keys(MethodChoice), *design_keys(ForecastOptions)),
}


#: the parameter names with a meaning of their own where no design declares any: the input size
#: x and the counts of threads (n), nodes (m) and processes (p)
CONVENTIONAL_PARAMETERS = ("x", "n", "m", "p")


def undeclared_names(components: Mapping[str, Model], known: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Per expression component, the names in it that are not in ``known`` (the parameters the
    design declares): an expression reads every such name as a symbol, which is what is meant
    for a parameter the design leaves symbolic and a silent mistake for a misspelt one (``xx``,
    ``é``). Components of other sources bring their own parameters and are left out."""
    known = set(known)
    unknown = {name: tuple(p for p in model.params if p not in known)
               for name, model in components.items() if model.source == "expression"}
    return {name: names for name, names in unknown.items() if names}


# ---------------------------------------------------------------------------------------------
# what every source shares: units, bindings and roles


def _fill_unit(model: Model, unit: str | None, name: str, explicit: bool = False) -> Model:
    """Give a model the unit of the component when its source states none; an explicit unit that
    contradicts the source's own is an error."""
    if not unit:
        return model
    try:
        check_unit(unit)
    except ModelError as exc:
        raise ComponentError(f"component '{name}': {exc}", key="unit") from None
    if not model.unit:
        return model.with_meta(unit=unit)
    if explicit and model.unit != unit:
        raise ComponentError(f"component '{name}': its source is in {model.unit}, the component says "
                             f"unit = \"{unit}\"", key="unit",
                             hint="drop the unit key (perfcompose converts units when it composes)")
    return model


def bind_model(model: Model, bind: Any, name: str) -> Model:
    """The model with its source's parameters bound to the design's: every parameter must be named."""
    if bind is None:
        return model
    if not isinstance(bind, Mapping):
        raise ComponentError(f"component '{name}': bind must be a table, e.g. bind = {{ N = \"x\", P = 4 }}",
                             key="bind")
    unbound = [p for p in model.params if p not in bind]
    if unbound:
        raise ComponentError(f"component '{name}': parameter{'s' if len(unbound) > 1 else ''} "
                             f"{', '.join(unbound)} of {model.source or 'its source'} left unbound",
                             key="bind", hint="bind every parameter of the source: "
                             + ", ".join(f'{p} = "x"' for p in model.params))
    try:
        return model.bind(dict(bind))
    except (ModelError, ModelSyntaxError) as exc:
        raise ComponentError(f"component '{name}': {getattr(exc, 'reason', exc)}", key="bind") from None


def _with_roles(model: Model, roles: Any, name: str) -> Model:
    if roles is None:
        return model
    if not isinstance(roles, Mapping) or not all(isinstance(v, str) and v in ROLES for v in roles.values()):
        raise ComponentError(f"component '{name}': roles maps parameters to one of {', '.join(ROLES)}",
                             key="roles", hint='e.g. roles = { n = "size", p = "processes" }')
    unknown = [k for k in roles if k not in model.params]
    if unknown:
        raise ComponentError(f"component '{name}': '{unknown[0]}' is not a parameter of its source "
                             f"(parameters: {', '.join(model.params) or 'none'})", key="roles")
    return model.with_meta(roles={**model.roles, **dict(roles)})


# ---------------------------------------------------------------------------------------------
# the sources


def _read_json(path: Path, name: str) -> Any:
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ComponentError(f"component '{name}': not JSON: {exc.msg}", path=path, line=exc.lineno,
                             column=exc.colno) from None
    except UnicodeDecodeError:
        raise ComponentError(f"component '{name}': not a text file", path=path) from None
    except OSError as exc:
        raise ComponentError(f"component '{name}': cannot read it: {exc.strerror}", path=path) from None


def _pick_record(records: list[Any], name: str, region: str | None, path: Path) -> Mapping[str, Any]:
    want = region or name
    found = [r for r in records if isinstance(r, Mapping) and r.get("region") == want]
    if not found and len(records) == 1:
        found = records
    if len(found) != 1:
        have = ", ".join(repr(r.get("region")) for r in records if isinstance(r, Mapping)) or "none"
        raise ComponentError(f"no single model for region '{want}' (regions: {have})", path=path,
                             hint=f"name the region: {name}={path}:REGION")
    return found[0]


def _record_model(doc: Any, name: str, region: str | None, path: Path) -> Model | None:
    """The model a JSON document written by perfcompose stands for, or None if it is not one."""
    fmt = doc.get("format") if isinstance(doc, Mapping) else None
    if fmt == LOGGP_FORMAT:
        return LogGPSource.from_record(doc, path).model(name, interval=True)
    if fmt == PAMELA_FORMAT:
        return model_from_record(doc, path)
    if fmt == SKELETON_FORMAT:
        from perfcompose.skeleton.source import SkeletonSource

        return _skeleton_roles(SkeletonSource.from_record(doc, path).model(name, interval=True))
    if isinstance(doc, Mapping) and fmt is None and "P" in doc and "steps" in doc:
        raise ComponentError(f"component '{name}': {path} is a LogGP program; its model needs the LogGP parameters",
                             path=path,
                             hint=f"in a design: {name} = {{ loggp = \"{path}\", params = \"loggp.json\" }}; "
                             "or write a model record with perfcompose loggp simulate PROGRAM --params FILE "
                             "--model-json OUT.json")
    if fmt == PREDICTION_FORMAT:
        if not isinstance(doc.get("model"), Mapping) or not isinstance(doc["model"].get("record"), Mapping):
            raise ComponentError(f"component '{name}': the prediction in {path} holds no model record", path=path,
                                 hint="its program has a part that no record describes; compose the program "
                                      "from its design instead")
        doc = doc["model"]["record"]
        fmt = doc.get("format")
    if isinstance(doc, Mapping) and ("expr" in doc or fmt == MODEL_FORMAT):
        return Model.from_json(doc, _numeric_functions(doc.get("functions"), name, path))
    # fit --json records: tagged with FIT_FORMAT, or (written before the tag) untagged
    if isinstance(doc, list) and doc and all(isinstance(r, Mapping) and "model" in r
                                             and r.get("format", FIT_FORMAT) == FIT_FORMAT for r in doc):
        # a series fit could not model is listed with "model": null
        return Model.from_json(_pick_record([r for r in doc if r["model"] is not None], name, region, path)["model"])
    return None


#: the functions rebuilt from records so far, by name and record: a record read twice (one saved
#: model as two components) gives the same function, which a composition of both can evaluate
_REBUILT: dict[tuple[str, str], Any] = {}


def _numeric_functions(records: Any, name: str, path: Path) -> dict[str, Any]:
    """The functions known only numerically that a model record applies, each rebuilt from its
    source's record (a LogGP program with its parameters, a skeleton's runtime table)."""
    if records is None:
        return {}
    if not isinstance(records, Mapping):
        raise ComponentError(f"component '{name}': 'functions' must map function names to their records", path=path)
    functions: dict[str, Any] = {}
    for fname, record in records.items():
        fmt = record.get("format") if isinstance(record, Mapping) else None
        if not (isinstance(fname, str) and fname.isidentifier()):
            raise ComponentError(f"component '{name}': {fname!r} in 'functions' is not a function name", path=path)
        key = (fname, json.dumps(record, sort_keys=True))
        if key in _REBUILT:
            functions[fname] = _REBUILT[key]
            continue
        if fmt == LOGGP_FORMAT:
            model = LogGPSource.from_record(record, path).model(fname)
        elif fmt == SKELETON_FORMAT:
            from perfcompose.skeleton.source import SkeletonSource

            model = SkeletonSource.from_record(record, path).model(fname)
        else:
            raise ComponentError(f"component '{name}': the record of function {fname} is no LogGP or skeleton model "
                                 f"record (format {fmt!r})", path=path,
                                 hint=f'its "format" is "{LOGGP_FORMAT}" or "{SKELETON_FORMAT}"')
        if not model.is_numeric:
            raise ComponentError(f"component '{name}': the record of function {fname} describes a constant, not a "
                                 "function of parameters", path=path)
        functions[fname] = _REBUILT[key] = model.expr.func
    return functions


def _fitted(name: str, path: Path, region: str | None, fit_options: Mapping[str, Any] | None) -> Model:
    exp = load(path)
    want = region or (name if name in exp.regions else None)
    chosen = exp.select(region=want) if want is not None else exp
    if len(chosen.series) > 1:
        what = f"{len(chosen.series)} series" + (f" in region '{want}'" if want else f" and none is named '{name}'")
        raise ComponentError(f"component '{name}': {what} ({', '.join(s.label for s in chosen.series)})",
                             path=path, key="region", hint=f"name the region: {name}={path}:REGION")
    fitter = PMNFFitter(**dict(fit_options or {}))
    result = fitter.fit(chosen).results_[0]
    model = with_uncertainty(result.model, chosen, aggregate=fitter.aggregate)
    return model.with_meta(name=name, source=f"fit of {path}" + (f":{want}" if want else ""))


def pamela_model(path: Path, process: str = ModelOptions.process, *, name: str = "") -> Model:
    """The compiled T of a PAMELA process as a Model in the PAMELA model's own parameters."""
    cost = compile_file(path)
    if process not in cost.processes:
        raise ComponentError(f"component '{name}': no process '{process}' in {path}", path=path, key="process",
                             hint="processes: " + (", ".join(cost.processes) or "none"))
    model = cost.model(process)
    return model.with_meta(name=name or model.name, source=f"PAMELA model {path}, T_{process}")


def _skeleton_roles(model: Model) -> Model:
    """In a runtime table n is the input size and p the number of PEs."""
    return model.with_meta(roles={**{"n": "size", "p": "processes"}, **model.roles})


def from_file(name: str, path: Path, *, region: str | None = None, unit: str | None = None,
              fit_options: Mapping[str, Any] | None = None) -> Model:
    """A component model from a file: a model record, a PAMELA model (``region`` names the
    process) or measurements, fitted here."""
    if not path.is_file():
        what = "a folder, not a file" if path.is_dir() else "no such file"
        raise ComponentError(f"component '{name}': {what}", path=path)
    saved = None
    if path.suffix.lower() == ".json":
        try:
            saved = _record_model(_read_json(path, name), name, region, path)
        except ModelSyntaxError as exc:
            raise ComponentError(f"component '{name}': {exc}", path=path) from None
    model = (pamela_model(path, region or "main", name=name) if path.suffix.lower() == ".pam"
             else saved if saved is not None else _fitted(name, path, region, fit_options))
    return _fill_unit(model.with_meta(name=name, source=model.source or str(path)), unit, name)


def _exists(path: Path) -> bool:
    """Whether ``path`` exists; False for text no file can be named by (too long, NUL bytes)."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


def component_model(name: str, text: str, *, unit: str | None = None, base: Path | None = None,
                    fit_options: Mapping[str, Any] | None = None) -> Model:
    """The model a component spec text stands for (see :func:`parse_component`)."""
    # FILE:SUFFIX split at the last colon, unless the whole text names an existing file
    file_part, _, region = text.rpartition(":") if ":" in text and not _exists(Path(text)) else (text, "", "")
    path = Path(file_part)
    if base is not None and not path.is_absolute():
        path = base / path
    looks_like_file = any(file_part.lower().endswith(s) for s in (".json", ".csv", ".txt", ".extrap", ".pam"))
    if _exists(path) or looks_like_file:
        if not _exists(path):
            raise ComponentError(f"component '{name}': no such file {path}")
        return from_file(name, path, region=region or None, unit=unit, fit_options=fit_options)
    try:
        model = Model.parse(text, unit=unit or "s")
    except ModelSyntaxError as exc:
        raise ComponentError(f"component '{name}': {exc.reason}", column=exc.column,
                             source_line=text if exc.column else None, hint=exc.hint) from None
    return model.with_meta(name=name, source="expression")


def parse_component(spec: str, *, unit: str | None = None, base: Path | None = None,
                    fit_options: Mapping[str, Any] | None = None) -> tuple[str, Model]:
    """Read ``NAME=MODEL`` where MODEL is an expression, a model file, a PAMELA model
    (``FILE.pam:PROCESS`` picks a process) or a measurement file (``FILE:REGION`` picks a region)."""
    if "=" not in spec:
        raise ComponentError(f"component '{spec}' needs a model: write NAME=EXPRESSION or NAME=FILE",
                             hint="e.g. -c qsort='1034.17*x*log2(x)' or -c qsort=examples/tasks.csv")
    name, _, text = spec.partition("=")
    name, text = name.strip(), text.strip()
    if not name.isidentifier():
        raise ComponentError(f"'{name}' is not a valid component name",
                             hint="names are letters, digits and underscores, not starting with a digit")
    return name, component_model(name, text, unit=unit, base=base, fit_options=fit_options)


# ---------------------------------------------------------------------------------------------
# component tables (design files)


@dataclass(frozen=True)
class _Table:
    """One component table of a design file, with the checks its keys need."""

    name: str
    spec: Mapping[str, Any]
    base: Path
    unit: str | None = None
    stem: str = "design"

    def path(self, key: str) -> Path:
        value = self.spec[key]
        if not isinstance(value, str) or not value:
            raise ComponentError(f"component '{self.name}': {key} must be a file name", key=key)
        p = Path(value)
        p = p if p.is_absolute() else Path(os.path.normpath(self.base / p))
        if not p.is_file():
            raise ComponentError(f"component '{self.name}': {'a folder, not a file' if p.is_dir() else 'no such file'}"
                                 f" {p}", key=key)
        return p

    def declared(self, cls: type, *, given_only: bool = False) -> dict[str, Any]:
        """The values of the options ``cls`` declares (perfcompose.option_fields), by field name:
        each read under its design-file key and checked against its type; a key left out takes the
        declared default, or is left out with ``given_only``."""
        out = {}
        for f in fields(cls):
            key = key_of(cls, f.name)
            if key in self.spec or not given_only:
                out[f.name] = self.get(key, value_kind(cls, f.name), default_of(cls, f.name))
        return out

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = None) -> Any:
        value = self.spec.get(key, default)
        if value is not default and (not isinstance(value, kind) or isinstance(value, bool) and kind is not bool):
            names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            raise ComponentError(f"component '{self.name}': {key} must be a {names}, got {value!r}", key=key)
        return value


def _loggp(t: _Table) -> Model:
    template = read_template(t.path("loggp"))
    params_file = t.path("params") if "params" in t.spec else None
    given = t.declared(LogGPParameters)
    params = given_params(params_file, given, hint='give L, o, g and G, or params = "file.json" (from perfcompose '
                                                   'loggp calibrate)')
    calibration = given_members(params_file, given)
    return LogGPSource(template, params, calibration=calibration,
                       **t.declared(LogGPOptions)).model(t.name, interval=True)


def _skeleton(t: _Table) -> Model:
    from perfcompose.skeleton import Skeleton
    from perfcompose.skeleton.source import SkeletonSource

    method = t.declared(MethodChoice)["method"]
    options = {"method_t": method, "method_a": method, **t.declared(ForecastOptions, given_only=True)}
    source = SkeletonSource.from_file(t.path("skeleton"), skeleton=Skeleton(**t.declared(SkeletonShape)),
                                      **options)
    return _skeleton_roles(source.model(t.name, interval=True))


def _measured(t: _Table) -> Model:
    """Measure a benchmark target (built-in task or module:function) and fit it; the sweep is
    checkpointed beside the design, so a second run reuses every finished point."""
    from perfcompose.bench import TASKS, checkpoint_for, parse_grid, resolve_target, run_sweep
    target = t.get("target", str)
    grid_text = t.get("grid", str)
    if grid_text is None and target in TASKS:
        grid = {p: TASKS[target].quick_grid[p] for p in TASKS[target].params} or {"x": (1.0,)}
    elif grid_text is not None:
        grid = parse_grid(grid_text.split())
    else:
        raise ComponentError(f"component '{t.name}' needs grid = \"x=LO:HI\" for its target", key="target")
    reps = t.get("reps", int, 11)
    if reps < 1:
        raise ComponentError("reps must be a positive integer", key="reps")
    tgt, identity = resolve_target(target, None, None)
    identity.update(grid={k: list(v) for k, v in grid.items()}, warmup=1)
    out = t.base / ".perfcompose" / f"{t.stem}-{t.name}.json"
    result = run_sweep(tgt, grid, reps=reps, warmup=1, checkpoint=checkpoint_for(out), identity=identity)
    result.values = {c: [v * 1e9 for v in vs] for c, vs in result.values.items()}
    exp = result.experiment(region=t.name, unit="ns", source=f"benchmark {target}")
    model = with_uncertainty(PMNFFitter(max_terms=1).fit(exp).model_, exp)
    return model.with_meta(name=t.name, unit="ns", source=f"measured {target}")


def saved_model(name: str, path: Path, model_set: str, region: str | None, metric: str | None) -> Model:
    """A model an Extra-P saved experiment holds: of the model set ``model_set``, the one of call
    path ``region`` and ``metric`` (either may be left out where it leaves one model)."""
    sets = saved_model_sets(path)
    if model_set not in sets:
        raise ComponentError(f"component '{name}': no model set '{model_set}' in this experiment (model sets: "
                             f"{', '.join(repr(k) for k in sets) or 'none'})", path=path, key="model_set")
    models = sets[model_set]
    keys = [k for k in models if region in (None, k[0]) and metric in (None, k[1])]
    if len(keys) != 1:
        have = ", ".join(f"{c}/{m}" for c, m in models) or "none"
        raise ComponentError(f"component '{name}': {len(keys)} models of model set '{model_set}' match "
                             f"(models: {have})", path=path, key="region",
                             hint='name the call path and metric: region = "CALLPATH", metric = "METRIC"')
    model = models[keys[0]]
    return model.with_meta(name=name, source=f"Extra-P model set '{model_set}' in {path}")


def _file(t: _Table) -> Model:
    model_set = t.get("model_set", str)
    if model_set is not None:
        return saved_model(t.name, t.path("file"), model_set, t.get("region", str), t.get("metric", str))
    if "metric" in t.spec:
        raise ComponentError(f"component '{t.name}': metric picks a saved model; give model_set too, or leave "
                             "it out to fit the file's measurements", key="metric")
    return from_file(t.name, t.path("file"), region=t.get("region", str), unit=None)


_LOADERS: dict[str, Callable[[_Table], Model]] = {
    "model": lambda t: component_model(t.name, t.get("model", str), unit=t.get("unit", str) or t.unit),
    "file": _file,
    "target": _measured,
    "pamela": lambda t: pamela_model(t.path("pamela"), t.get("process", str, ModelOptions.process), name=t.name),
    "loggp": _loggp,
    "skeleton": _skeleton,
}


def from_table(name: str, spec: Mapping[str, Any], *, base: Path, unit: str | None = None,
               stem: str = "design") -> Model:
    """The model of one design-file component table; errors are ComponentErrors naming the key."""
    known = {*SOURCES, *(o for opts in SOURCES.values() for o in opts), *COMMON_KEYS}
    for key in spec:
        if key not in known:
            raise ComponentError(f"component '{name}': unknown key '{key}'", key=key,
                                 hint="a component names its source by one of " + ", ".join(SOURCES)
                                 + "; see docs/design.md for each source's keys")
    sources = [k for k in SOURCES if k in spec]
    if len(sources) != 1:
        raise ComponentError(f"component '{name}' needs exactly one of " + ", ".join(f"{k} = ..." for k in SOURCES),
                             hint='e.g. { file = "tasks.csv", region = "inc" } or { pamela = "mrm.pam", '
                                  'bind = { N = "x", P = 4 } }')
    source = sources[0]
    allowed = (source, *SOURCES[source], *COMMON_KEYS)
    for key in spec:
        if key not in allowed:
            raise ComponentError(f"component '{name}': unknown key '{key}' for a {source} component", key=key,
                                 hint="keys: " + ", ".join(allowed))
    table = _Table(name, spec, base, unit, stem)
    try:
        model = _LOADERS[source](table)
    except ComponentError:
        raise
    except PerfcomposeError as exc:
        located = isinstance(exc, InputError) and exc.path is not None
        raise ComponentError(f"component '{name}': {exc if located else getattr(exc, 'reason', exc)}", key=source,
                             hint=None if located else getattr(exc, "hint", None)) from None
    own_unit = table.get("unit", str)
    model = _fill_unit(model, own_unit or unit, name, explicit=own_unit is not None)
    model = _with_roles(model, spec.get("roles"), name)
    model = bind_model(model, spec.get("bind"), name)
    return model.with_meta(name=name)
