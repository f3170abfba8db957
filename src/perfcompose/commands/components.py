"""The options that name a program's components, shared by compose, laws, explore and predict:
``-c NAME=MODEL``, ``--bind NAME.PARAM=VALUE``, sizes ``--x`` and parameter values ``--param``."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import typer
from rich.markup import escape

from perfcompose.assignments import parse_assignments
from perfcompose.bench import parse_values
from perfcompose.commands.common import err_console
from perfcompose.compose import parse_component
from perfcompose.compose.components import CONVENTIONAL_PARAMETERS, bind_model, undeclared_names
from perfcompose.compose.terms import symbolic_counts
from perfcompose.errors import ModelError
from perfcompose.units import check_unit

COMPONENT_HELP = ("A component: NAME=EXPRESSION (e.g. qsort='1034.17*x*log2(x)'), NAME=MODEL.json (from fit --json, "
                   "pamela compile --json, skeleton forecast --json, loggp simulate --model-json), "
                   "NAME=MODEL.pam[:PROCESS] (PAMELA) or NAME=MEASUREMENTS[:REGION] (fitted here). Repeatable.")
BIND_HELP = ("Bind a component's parameter to the design's: NAME.PARAM=VALUE, e.g. mrm.N=x or mrm.P=4 (a number, "
              "a parameter name or an expression). Repeatable.")
UNIT_HELP = "Time unit of components whose source states none (expressions: default s; PAMELA models)."
PIPE_HELP = "Pipeline max: pointwise (exact, never drops a stage) or asymptotic (the papers' eq. 3)."


def components(specs: list[str], unit: str | None, binds: Sequence[str] = ()) -> dict[str, Any]:
    """The components given with ``-c``, each bound as ``--bind`` says; ``--unit`` must be one
    perfcompose converts."""
    if unit:
        try:
            check_unit(unit)
        except ModelError as exc:
            raise typer.BadParameter(str(exc), param_hint="--unit") from None
    comps: dict[str, Any] = {}
    for spec in specs:
        name, model = parse_component(spec, unit=unit)
        if name in comps:
            raise typer.BadParameter(f"component '{name}' given twice", param_hint="-c")
        comps[name] = model
    bound: dict[str, dict[str, str]] = {}
    for text in binds:
        target, eq, value = text.partition("=")
        comp, dot, param = target.strip().partition(".")
        if not eq or not dot or not param or not value.strip():
            raise typer.BadParameter(f"{text!r}: write NAME.PARAM=VALUE, e.g. mrm.N=x", param_hint="--bind")
        if comp not in comps:
            raise typer.BadParameter(f"{text!r}: no component '{comp}' (components: {', '.join(comps) or 'none'})",
                                     param_hint="--bind")
        bound.setdefault(comp, {})[param] = value.strip()
    for comp, mapping in bound.items():
        model = comps[comp]
        kept = {p: p for p in model.params if p not in mapping}
        comps[comp] = bind_model(model, {**mapping, **kept}, comp)
    return comps


def note_undeclared(comps: Mapping[str, Any], terms: Sequence[Any], given: Sequence[str] = ()) -> None:
    """A note on stderr per expression component of the terms that uses a name perfcompose gives
    no meaning (not x, n, m, p, a count of the terms, nor a name given a value): it is kept as a
    symbol, which may be meant, or a misspelling."""
    used = {name for t in terms for name in t.components()}
    known = {*CONVENTIONAL_PARAMETERS, *given, *(c for t in terms for c in symbolic_counts(t))}
    for name, unknown in undeclared_names({k: v for k, v in comps.items() if k in used}, known).items():
        some = len(unknown) > 1
        err_console.print(f"[cyan]note:[/cyan] component '{escape(name)}': "
                          f"{escape(', '.join(repr(u) for u in unknown))} "
                          f"{'are not known parameters' if some else 'is not a known parameter'} (x the input "
                          "size, n, m, p the counts of threads, nodes and processes, or a name given a value); "
                          f"the expression keeps {'them' if some else 'it'} as {'symbols' if some else 'a symbol'}: "
                          "check the spelling", highlight=False)


#: the most sizes one --x gives (each is a row, a table or a measurement of its own)
MAX_SIZES = 64


def x_values(values: list[str]) -> list[float]:
    """``--x 1024 --x 65536``, ``--x 1024:262144`` (powers of two between, ends included) or lists."""
    out = [v for text in values for v in parse_values(text)]
    if any(not v > 0 for v in out):
        raise typer.BadParameter("sizes must be positive", param_hint="--x")
    if len(out) > MAX_SIZES:
        raise typer.BadParameter(f"{len(out)} sizes ({', '.join(values)}): give at most {MAX_SIZES}, e.g. a "
                                 "narrower range LO:HI (the powers of two between) or a list", param_hint="--x")
    return out


def parameter_values(values: list[str]) -> dict[str, float]:
    """``--param n=4``: values of a model's symbolic parameters (positive finite numbers)."""
    return parse_assignments(values, option="--param", positive=True)
