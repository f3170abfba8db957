"""``perfcompose pamela``: compile, evaluate and simulate PAMELA models (paper 004)."""
from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import List, Optional

import typer
from perfcompose.commands.common import Table

from perfcompose.commands.common import console, fmt, user_errors
from perfcompose.errors import InputError

app = typer.Typer(no_args_is_help=True,
                  help="PAMELA process models compiled to symbolic cost models, evaluated and simulated.")

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MODEL = typer.Argument(..., help="PAMELA model file (.pam).")
_PROCESS = typer.Option("main", "--process", "-p", help="The process to compile (default main).")
_PAPER_PHI = typer.Option(False, "--paper-phi", help="Use the paper's printed rule phi = t/b for use(fcfs(a, b), t) "
                                                     "instead of t.")
_ASSIGN = typer.Argument(None, help="Parameter values, e.g. P=1000 N=1e6.")


def parse_assignments(items: List[str] | None) -> dict[str, float]:
    """``["P=1000", "N=1e6"]`` -> ``{"P": 1000.0, "N": 1e6}``, with a clear error for a bad item."""
    values: dict[str, float] = {}
    for item in items or []:
        name, eq, text = item.partition("=")
        name, text = name.strip(), text.strip()
        if not eq:
            raise InputError(f"'{item}' is not a parameter assignment", hint="write NAME=VALUE, e.g. P=1000")
        if not _NAME.fullmatch(name):
            raise InputError(f"'{name}' in '{item}' is not a parameter name", hint="write NAME=VALUE, e.g. P=1000")
        try:
            value = float(text)
        except ValueError:
            raise InputError(f"the value of {name} ('{text}') is not a number",
                             hint=f"write a number, e.g. {name}=1000 or {name}=1e6") from None
        if not math.isfinite(value):
            raise InputError(f"the value of {name} must be finite, got '{text}'")
        if name in values:
            raise InputError(f"{name} is given twice", hint="give each parameter once")
        values[name] = value
    return values


def _compile(model: Path, paper_phi: bool):
    from perfcompose.pamela import compile_file

    return compile_file(model, paper_phi=paper_phi)


@app.command("compile")
@user_errors
def compile_cmd(model: Path = _MODEL,
                everything: bool = typer.Option(False, "--all", help="Print phi, delta and omega as well as T."),
                process: str = _PROCESS, paper_phi: bool = _PAPER_PHI,
                json_out: Optional[Path] = typer.Option(None, "--json", help="Also write T_<process> as a model "
                                                        "record here (a component: -c NAME=FILE.json).")) -> None:
    """Print the simplified cost model T_<process> (as PAMELA text)."""
    cm = _compile(model, paper_phi)
    if json_out is not None:
        from perfcompose.pamela.costmodel import model_record

        record = model_record(model.read_text(), model, process, paper_phi=paper_phi)
        json_out.write_text(json.dumps(record, indent=2) + "\n")
    console.print(cm.text(process, everything), highlight=False, soft_wrap=True)
    if not cm.closed(process):
        console.print("% no closed form for every part: the sums and maxima left evaluate exactly "
                      "once the parameters are bound", style="dim", highlight=False)


@app.command("eval")
@user_errors
def eval_cmd(model: Path = _MODEL, assignments: Optional[List[str]] = _ASSIGN,
             as_json: bool = typer.Option(False, "--json", help="Print {T_, phi_, omega_, delta_} as JSON."),
             process: str = _PROCESS, paper_phi: bool = _PAPER_PHI) -> None:
    """Evaluate T, phi, omega and delta of a process at the given parameter values."""
    values = parse_assignments(assignments)
    cm = _compile(model, paper_phi)
    result = cm.evaluate(values, process)
    if as_json:
        console.print_json(json.dumps(result.as_json()))
        return
    console.print(f"{model.name}: {process} at " + (", ".join(f"{k}={v:g}" for k, v in values.items()) or
                                                     "no parameters"), highlight=False)
    table = Table()
    table.add_column("equation")
    table.add_column("value", justify="right")
    table.add_row(f"T_{process}", fmt(result.T, ".10g"))
    table.add_row(f"phi_{process}", fmt(result.phi, ".10g"))
    table.add_row(f"omega_{process}", fmt(result.omega, ".10g"))
    loads = sorted(result.delta.items())
    shown = ", ".join(f"{k}: {v:.6g}" for k, v in loads[:8]) + (f", ... ({len(loads)} resources)"
                                                                 if len(loads) > 8 else "")
    table.add_row(f"delta_{process}", "{" + shown + "}")
    console.print(table)


@app.command("simulate")
@user_errors
def simulate_cmd(model: Path = _MODEL, assignments: Optional[List[str]] = _ASSIGN,
                 distribution: str = typer.Option("deterministic", "--distribution", "-d",
                                                  help="deterministic, exponential-service (use() times "
                                                       "exponential) or exponential (delays too)."),
                 seed: int = typer.Option(0, "--seed", help="Seed of the random times."),
                 as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
                 process: str = _PROCESS, paper_phi: bool = _PAPER_PHI) -> None:
    """Simulate the model and print the symbolic bound next to the simulated time."""
    values = parse_assignments(assignments)
    cm = _compile(model, paper_phi)
    bound = cm.evaluate(values, process).T
    sim = cm.simulate(values, process, distribution=distribution, seed=seed)  # type: ignore[arg-type]
    error = (sim.time - bound) / sim.time if sim.time else 0.0
    if as_json:
        console.print_json(json.dumps({f"T_{process}": bound, "simulated": sim.time, "relative_error": error,
                                       "distribution": distribution, "seed": seed, "uses": sim.uses,
                                       "wall_s": sim.wall}))
        return
    console.print(f"{model.name}: {process} at " + (", ".join(f"{k}={v:g}" for k, v in values.items()) or
                                                     "no parameters") + f" ({distribution}, seed {seed})",
                  highlight=False)
    table = Table()
    for col in ("bound T", "simulated", "error", "services", "simulation s"):
        table.add_column(col, justify="right")
    table.add_row(fmt(bound, ".10g"), fmt(sim.time, ".10g"), f"{error * 100:.3f} %", f"{sim.uses:,}",
                  f"{sim.wall:.3f}")
    console.print(table)
    console.print("error = (simulated - bound) / simulated; the bound is a lower bound on the time.",
                  style="dim", highlight=False)
