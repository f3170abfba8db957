"""Where component models come from: an expression, a saved model, or measurements to fit.

``NAME=1034.17*x*log2(x)``, ``NAME=models.json`` (written by ``perfcompose fit --json`` or
``Model.to_json``) and ``NAME=tasks.csv`` (measurements, fitted with the PMNF fitter; the series
whose region is NAME, or the only one) all give a :class:`~perfcompose.model.Model`.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from perfcompose.errors import InputError, ModelSyntaxError
from perfcompose.model import MODEL_FORMAT, Model


class ComponentError(InputError):
    """A component that cannot be loaded."""


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


def _saved_model(doc: Any, name: str, region: str | None, path: Path) -> Model | None:
    if isinstance(doc, Mapping) and ("expr" in doc or doc.get("format") == MODEL_FORMAT):
        return Model.from_json(doc)
    if isinstance(doc, list) and doc and all(isinstance(r, Mapping) and "model" in r for r in doc):
        record = _pick_record(doc, name, region, path)
        return Model.from_json(record["model"])
    return None


def from_file(name: str, path: Path, *, region: str | None = None, unit: str | None = None,
              fit_options: Mapping[str, Any] | None = None) -> Model:
    """A component model from a saved model or from measurements (fitted here)."""
    from perfcompose.data import load
    from perfcompose.fit import PMNFFitter

    if not path.is_file():
        raise ComponentError(f"component '{name}': no such file", path=path)
    if path.suffix.lower() == ".json":
        try:
            doc = json.loads(path.read_text())
        except json.JSONDecodeError as exc:
            raise ComponentError(f"not JSON: {exc.msg}", path=path, line=exc.lineno, column=exc.colno) from None
        except UnicodeDecodeError:
            raise ComponentError("not a text file", path=path) from None
        try:
            saved = _saved_model(doc, name, region, path)
        except ModelSyntaxError as exc:
            raise ComponentError(f"component '{name}': {exc}", path=path) from None
        if saved is not None:
            model = saved
            return model.with_meta(name=name, source=str(path), unit=unit or model.unit)
    exp = load(path)
    want = region or (name if name in exp.regions() else None)
    if want is None and len(exp.series) > 1:
        raise ComponentError(f"component '{name}': {len(exp.series)} series and none is named '{name}' "
                             f"(regions: {', '.join(r or '-' for r in exp.regions())})", path=path,
                             hint=f"name the region: {name}={path}:REGION")
    result = PMNFFitter(**dict(fit_options or {})).fit(exp, region=want).results_[0]
    model = result.model
    return model.with_meta(name=name, source=f"fit of {path}" + (f":{want}" if want else ""),
                           unit=unit or model.unit)


def parse_component(spec: str, *, unit: str | None = None, base: Path | None = None,
                    fit_options: Mapping[str, Any] | None = None) -> tuple[str, Model]:
    """Read ``NAME=MODEL`` where MODEL is an expression, a model file or a measurement file
    (``FILE:REGION`` picks a region)."""
    if "=" not in spec:
        raise ComponentError(f"component '{spec}' needs a model: write NAME=EXPRESSION or NAME=FILE",
                             hint="e.g. -c qsort='1034.17*x*log2(x)' or -c qsort=examples/tasks.csv")
    name, _, text = spec.partition("=")
    name, text = name.strip(), text.strip()
    if not name.isidentifier():
        raise ComponentError(f"'{name}' is not a valid component name",
                             hint="names are letters, digits and underscores, not starting with a digit")
    return name, component_model(name, text, unit=unit, base=base, fit_options=fit_options)


def component_model(name: str, text: str, *, unit: str | None = None, base: Path | None = None,
                    fit_options: Mapping[str, Any] | None = None) -> Model:
    """The model a component spec text stands for (see :func:`parse_component`)."""
    file_part, _, region = text.partition(":") if not Path(text).exists() else (text, "", "")
    path = Path(file_part)
    if base is not None and not path.is_absolute():
        path = base / path
    if path.is_file():
        return from_file(name, path, region=region or None, unit=unit, fit_options=fit_options)
    looks_like_file = any(text.lower().endswith(s) for s in (".json", ".csv", ".txt", ".extrap"))
    if looks_like_file:
        raise ComponentError(f"component '{name}': no such file {path}")
    try:
        model = Model.parse(text, unit=unit or "s")
    except ModelSyntaxError as exc:
        raise ComponentError(f"component '{name}': {exc.reason}", column=exc.column,
                             source_line=text if exc.column else None, hint=exc.hint) from None
    return model.with_meta(name=name, source="expression")
