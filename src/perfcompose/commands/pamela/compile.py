"""``perfcompose pamela compile`` and ``simulate``: a PAMELA model compiled to its symbolic cost
model, printed, or evaluated beside a simulation of the model."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from perfcompose.assignments import parse_assignments
from perfcompose.choices import Distribution
from perfcompose.commands.common import cli_command, console, fmt, json_option, numbers_table, write_json
from perfcompose.commands.pamela.eval import PointOptions, time_unit
from perfcompose.errors import evaluating, finite_result
from perfcompose.option_fields import option, shared
from perfcompose.pamela.compile.costmodel import compile_file, model_record
from perfcompose.pamela.options import ModelOptions


@dataclass(frozen=True)
class CompileCommand(ModelOptions):
    everything: bool = option(False, "Print phi, delta and omega as well as T.", flag="--all")
    json_out: Path | None = shared(json_option("T_<process> as a model record (a component: -c NAME=FILE.json)"))


@cli_command(CompileCommand)
def compile_cmd(o: CompileCommand) -> None:
    model, process, paper_phi = o.model, o.process, o.paper_phi
    cm = compile_file(model, paper_phi=paper_phi)
    if o.json_out is not None:
        record = model_record(model.read_text(), model, process, paper_phi=paper_phi)
        write_json(o.json_out, record, "model record", indent=2)
    console.print(cm.text(process, o.everything), highlight=False, soft_wrap=True)
    if not cm.closed(process):
        console.print("% no closed form for every part: the sums and maxima left evaluate exactly "
                      "once the parameters are bound", style="dim", highlight=False)


@dataclass(frozen=True)
class SimulateCommand(PointOptions):
    distribution: Distribution = option("deterministic", "deterministic, exponential-service (use() times "
                                                         "exponential) or exponential (delays too).", aliases=("-d",))
    seed: int = option(0, "Seed of the random times.", minimum=0, max=2 ** 32 - 1)
    as_json: Path | None = shared(json_option("the bound, the simulated time and the MVA"))


@cli_command(SimulateCommand)
def simulate_cmd(o: SimulateCommand) -> None:
    model, process, distribution, seed, unit = o.model, o.process, o.distribution, o.seed, time_unit(o.unit)
    values = parse_assignments(o.assignments)
    cm = compile_file(model, paper_phi=o.paper_phi)
    where = ", ".join(f"{k}={v:g}" for k, v in values.items()) or "no parameters"
    with evaluating(where):
        bound = cm.evaluate(values, process).T
    finite_result({f"T_{process}": bound}, where)
    sim = cm.simulate(values, process, distribution=distribution, seed=seed)
    error = (sim.time - bound) / sim.time if sim.time else 0.0
    mva = cm.mva(values, process)
    if o.as_json is not None:
        write_json(o.as_json, {f"T_{process}": bound, "simulated": sim.time, "relative_error": error,
                               "mva": mva, "mva_error": None if mva is None or not sim.time
                               else (sim.time - mva) / sim.time,
                               "distribution": distribution, "seed": seed, "unit": unit, "uses": sim.uses,
                               "wall_s": sim.wall}, "result", indent=2)
    console.print(f"{model.name}: {process} at {where} ({distribution}, seed {seed})", highlight=False)
    table = numbers_table(None, f"bound T [{unit}]", f"simulated [{unit}]", "error",
                          *([f"MVA [{unit}]", "MVA error"] if mva is not None else []),
                          "services", "simulation s")
    extra = [fmt(mva, ".10g"), f"{(sim.time - mva) / sim.time * 100:.3f} %"] if mva is not None else []
    table.add_row(fmt(bound, ".10g"), fmt(sim.time, ".10g"), f"{error * 100:.3f} %", *extra, f"{sim.uses:,}",
                  f"{sim.wall:.3f}")
    console.print(table)
    if mva is not None:
        console.print("MVA: mean value analysis of the closed network (exact in the steady state with "
                      "exponential service).", style="dim", highlight=False)
    console.print("error = (simulated - bound) / simulated; the bound is a lower bound on the time.",
                  style="dim", highlight=False)
