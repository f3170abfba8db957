"""``perfcompose pamela eval``: a PAMELA model evaluated at a point or on a grid of points; a grid
needs no symbolic algebra where the model is a numeric form or compiled before. Also the options that
``pamela simulate`` shares: the model, parameter values and their unit."""
from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from pathlib import Path

from perfcompose.assignments import parse_assignments
from perfcompose.commands.common import cli_command, console, fmt, json_option, numbers_table, write_json
from perfcompose.errors import InputError, PerfcomposeError, evaluating, finite_result
from perfcompose.option_fields import option, shared
from perfcompose.pamela.compile.point_evaluation import check_names, evaluate_point, grid_function
from perfcompose.pamela.options import ModelOptions
from perfcompose.units import check_unit, human


@dataclass(frozen=True)
class PointOptions(ModelOptions):
    """A model evaluated at the parameter values given."""

    assignments: list[str] | None = option(None, "Parameter values, e.g. P=1000 N=1e6.", argument=True)
    unit: str = option("us", "The time unit of the model's numbers (PAMELA's examples are in microseconds): us, ms, "
                             "s or ns.")


def time_unit(unit: str) -> str:
    """``--unit`` checked; a unit it cannot read is refused with the ones it can."""
    try:
        check_unit(unit)
    except PerfcomposeError as exc:
        raise InputError(str(exc), hint="--unit us (PAMELA's examples), ms, s or ns") from None
    return unit


#: resources whose loads ``pamela eval`` lists one per row; more are summed up in one row
SHOWN_RESOURCES = 8

_RANGE = re.compile(r"\s*(-?[0-9.eE+-]+)\s*:\s*(-?[0-9.eE+-]+)\s*(?::\s*(-?[0-9.eE+-]+)\s*)?")


def parse_grid(items: list[str] | None) -> dict[str, tuple[float, ...]]:
    """``["P=1:1000", "N=1e6"]`` -> values per parameter: ``a:b`` is every integer from a to b,
    ``a:b:s`` every s-th, ``a,b,c`` a list, a number a single point."""
    grid: dict[str, tuple[float, ...]] = {}
    plain: list[str] = []
    for item in items or []:
        name, eq, text = item.partition("=")
        m = _RANGE.fullmatch(text) if eq else None
        if m is None and eq and "," in text:
            grid[name.strip()] = tuple(v for part in text.split(",")
                                       for v in parse_assignments([f"{name}={part}"]).values())
            continue
        if m is None:
            plain.append(item)
            continue
        try:
            lo, hi = float(m.group(1)), float(m.group(2))
            step = float(m.group(3)) if m.group(3) else 1.0
        except ValueError:
            raise InputError(f"'{text}' in '{item}' is not a range", hint="write NAME=FIRST:LAST[:STEP], "
                             "e.g. P=1:1000") from None
        if step <= 0 or hi < lo or (hi - lo) / step > 10_000_000:
            raise InputError(f"'{text}' in '{item}' is not a range from FIRST up to LAST with a positive step "
                             "(at most 10^7 points)", hint="e.g. P=1:1000 or N=1e3:1e6:1e3")
        count = int(math.floor((hi - lo) / step + 1e-9)) + 1
        grid[name.strip()] = tuple(lo + k * step for k in range(count))
    for name, value in parse_assignments(plain).items():
        if name in grid:
            raise InputError(f"{name} is given twice", hint="give each parameter once")
        grid[name] = (value,)
    return grid


def refuse_negative(model: Path, grid: dict[str, tuple[float, ...]]) -> None:
    """Refuse a value below zero: the compiler takes parameters (counts, sizes) to be positive."""
    for name, values in grid.items():
        if min(values, default=0.0) < 0:
            raise InputError(f"{name}={min(values):g} is below zero; the cost model of {model} takes its parameters "
                             "(counts, sizes, times) to be positive", hint=f"give {name} a value of 0 or more")


@dataclass(frozen=True)
class EvalCommand(PointOptions):
    as_json: Path | None = shared(json_option("{T_, phi_, omega_, delta_} (on a grid: the points and T_ at each)"))


@cli_command(EvalCommand)
def eval_cmd(o: EvalCommand) -> None:
    model, process, paper_phi, unit, as_json = o.model, o.process, o.paper_phi, time_unit(o.unit), o.as_json
    grid = parse_grid(o.assignments)
    refuse_negative(model, grid)
    if any(len(v) > 1 for v in grid.values()):
        _eval_grid(model, grid, process, paper_phi, as_json, unit)
        return
    values = {k: v[0] for k, v in grid.items()}
    where = ", ".join(f"{k}={v:g}" for k, v in values.items()) or "no parameters"
    with evaluating(f"{where} in {model}"):
        result = evaluate_point(model, values, process, paper_phi)
    worst = min(result.delta, key=lambda k: (math.isfinite(result.delta[k]), result.delta[k]), default=None)
    finite_result({f"T_{process}": result.T, f"phi_{process}": result.phi, f"omega_{process}": result.omega,
                   **({} if worst is None else {f"delta_{process} of resource {worst}": result.delta[worst]})},
                  f"{where} in {model}")
    if as_json is not None:
        write_json(as_json, {**result.as_json(), "unit": unit}, "result", indent=2)
    console.print(f"{model.name}: {process} at {where}" + (f" (times in {unit})" if unit else ""), highlight=False)
    table = numbers_table(None, "equation", f"value [{unit}]" if unit else "value", "", left=1)
    meaning = {"T": "time", "phi": "critical path", "omega": "busiest resource"}
    for quantity in ("T", "phi", "omega"):
        value = getattr(result, quantity)
        table.add_row(f"{quantity}_{process} ({meaning[quantity]})", fmt(value, ".10g"), human(value, unit))
    loads = sorted(result.delta.items())
    if not loads:
        table.add_row(f"delta_{process} (load per resource)", "none", "")
    for k, v in loads[:SHOWN_RESOURCES]:
        table.add_row(f"delta_{process} of resource {k}", fmt(v, ".10g"), human(v, unit))
    if len(loads) > SHOWN_RESOURCES:
        rest = loads[SHOWN_RESOURCES:]
        table.add_row(f"delta_{process} of resources {rest[0][0]} .. {rest[-1][0]} ({len(rest)} more)",
                      f"max {fmt(max(v for _, v in rest), '.10g')}", "--json lists every one")
    console.print(table)


#: grids of more points than this print as plain aligned columns, not a drawn table
PLAIN_ROWS = 100


def _eval_grid(model: Path, grid: dict[str, tuple[float, ...]], process: str, paper_phi: bool,
               as_json: Path | None, unit: str) -> None:
    """T of the process at every point of the grid, with one compilation (none where the model
    is a numeric form, or compiled before and kept)."""
    parameters, needed, fn = grid_function(model, process, paper_phi)
    check_names(model.name, str(model), parameters, grid, needed)
    names = [p for p in parameters if p in grid]
    points = list(itertools.product(*(grid[n] for n in names)))
    slots = [names.index(p) if p in grid else None for p in parameters]
    try:
        with evaluating(f"a point of the grid in {model}"):
            # a parameter T does not use needs no value: it is NaN in the plain function
            results = [float(fn(*(math.nan if k is None else pt[k] for k in slots))) for pt in points]
    except InputError as exc:  # the evaluator knows no file (nor that the points add up)
        raise type(exc)(f"T_{process} on {len(points):,} points: {exc.reason}", path=exc.path or str(model),
                        hint=exc.hint) from None
    for pt, value in zip(points, results):
        finite_result({f"T_{process}": value}, ", ".join(f"{n}={v:g}" for n, v in zip(names, pt)) + f" in {model}")
    if as_json is not None:
        write_json(as_json, {"parameters": names, "points": [list(pt) for pt in points], f"T_{process}": results,
                             "unit": unit}, "grid", indent=2)
    title = f"{model.name}: T_{process} at {len(points):,} points"
    header = [*names, f"T_{process} [{unit}]" if unit else f"T_{process}"]
    rows = [[*(f"{v:g}" for v in pt), fmt(value, ".10g")] for pt, value in zip(points, results)]
    if len(rows) > PLAIN_ROWS:
        # plain aligned columns: drawing a rich table of thousands of rows costs more than the grid
        widths = [max(len(r[k]) for r in [header, *rows]) for k in range(len(header))]
        console.file.write(title + "\n" + "\n".join("  ".join(c.rjust(w) for c, w in zip(r, widths))
                                                    for r in [header, *rows]) + "\n")
        return
    console.print(title)  # above the table, not its title: a title wraps to the table's width
    table = numbers_table(None, *header)
    for row in rows:
        table.add_row(*row)
    console.print(table)
