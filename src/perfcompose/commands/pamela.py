"""``perfcompose pamela``: compile, evaluate and simulate PAMELA models (paper 004)."""
from __future__ import annotations

import math
import re
from pathlib import Path

import typer

from perfcompose.assignments import parse_assignments
from perfcompose.choices import Clock
from perfcompose.commands.common import Table, console, fmt, json_option, user_errors, write_json
from perfcompose.errors import InputError, evaluating, finite_result

#: the group's help is its entry's in perfcompose.cli
app = typer.Typer(no_args_is_help=True)

_MODEL = typer.Argument(..., help="PAMELA model file (.pam).")
_PROCESS = typer.Option("main", "--process", "-p", help="The process to compile (default main).")
_PAPER_PHI = typer.Option(False, "--paper-phi", help="Use the paper's printed rule phi = t/b for use(fcfs(a, b), t) "
                                                     "instead of t.")
_ASSIGN = typer.Argument(None, help="Parameter values, e.g. P=1000 N=1e6.")


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
            values: list[float] = []
            for part in text.split(","):
                values.extend(parse_assignments([f"{name}={part}"]).values())
            grid[name.strip()] = tuple(values)
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


def _compile(model: Path, paper_phi: bool):
    from perfcompose.pamela import compile_file

    return compile_file(model, paper_phi=paper_phi)


@app.command("compile")
@user_errors
def compile_cmd(model: Path = _MODEL,
                everything: bool = typer.Option(False, "--all", help="Print phi, delta and omega as well as T."),
                process: str = _PROCESS, paper_phi: bool = _PAPER_PHI,
                json_out: Path | None = json_option("T_<process> as a model record (a component: -c "
                                                    "NAME=FILE.json)")) -> None:
    """Print the simplified cost model T_<process> (as PAMELA text)."""
    cm = _compile(model, paper_phi)
    if json_out is not None:
        from perfcompose.pamela.costmodel import model_record

        record = model_record(model.read_text(), model, process, paper_phi=paper_phi)
        write_json(json_out, record, "model record", indent=2)
    console.print(cm.text(process, everything), highlight=False, soft_wrap=True)
    if not cm.closed(process):
        console.print("% no closed form for every part: the sums and maxima left evaluate exactly "
                      "once the parameters are bound", style="dim", highlight=False)


@app.command("eval")
@user_errors
def eval_cmd(model: Path = _MODEL, assignments: list[str] | None = _ASSIGN,
             as_json: Path | None = json_option("{T_, phi_, omega_, delta_} (on a grid: the points and T_ at each)"),
             process: str = _PROCESS, paper_phi: bool = _PAPER_PHI) -> None:
    """Evaluate T, phi, omega and delta of a process at the given parameter values; a range
    (P=1:1000, N=1e3:1e6:1e3) or list (P=1,2,4) evaluates T on the whole grid of points."""
    grid = parse_grid(assignments)
    if any(len(v) > 1 for v in grid.values()):
        _eval_grid(model, grid, process, paper_phi, as_json)
        return
    values = {k: v[0] for k, v in grid.items()}
    where = ", ".join(f"{k}={v:g}" for k, v in values.items()) or "no parameters"
    from perfcompose.pamela.points import evaluate_point

    with evaluating(where):
        result = evaluate_point(model, values, process, paper_phi)
    finite_result({f"T_{process}": result.T, f"phi_{process}": result.phi, f"omega_{process}": result.omega}, where)
    if as_json is not None:
        write_json(as_json, result.as_json(), "result", indent=2)
    console.print(f"{model.name}: {process} at {where}", highlight=False)
    table = Table()
    table.add_column("equation")
    table.add_column("value", justify="right")
    for quantity in ("T", "phi", "omega"):
        table.add_row(f"{quantity}_{process}", fmt(getattr(result, quantity), ".10g"))
    loads = sorted(result.delta.items())
    shown = ", ".join(f"{k}: {v:.6g}" for k, v in loads[:8]) + (f", ... ({len(loads)} resources)"
                                                                 if len(loads) > 8 else "")
    table.add_row(f"delta_{process}", "{" + shown + "}")
    console.print(table)


#: grids of more points than this print as plain aligned columns, not a drawn table
PLAIN_ROWS = 100


def _eval_grid(model: Path, grid: dict[str, tuple[float, ...]], process: str, paper_phi: bool,
               as_json: Path | None) -> None:
    """T of the process at every point of the grid, with one compilation (none where the model
    is a numeric form, or compiled before and kept)."""
    import itertools

    from perfcompose.pamela.points import check_names, grid_function

    parameters, needed, fn = grid_function(model, process, paper_phi)
    check_names(model, parameters, grid, needed)
    names = [p for p in parameters if p in grid]
    points = list(itertools.product(*(grid[n] for n in names)))
    slots = [names.index(p) if p in grid else None for p in parameters]
    with evaluating("a point of the grid"):
        # a parameter T does not use needs no value: it is NaN in the plain function
        results = [float(fn(*(math.nan if k is None else pt[k] for k in slots))) for pt in points]
    for pt, value in zip(points, results):
        finite_result({f"T_{process}": value}, ", ".join(f"{n}={v:g}" for n, v in zip(names, pt)))
    if as_json is not None:
        write_json(as_json, {"parameters": names, "points": [list(pt) for pt in points], f"T_{process}": results},
                   "grid", indent=2)
    title = f"{model.name}: T_{process} at {len(points):,} points"
    header = [*names, f"T_{process}"]
    rows = [[*(f"{v:g}" for v in pt), fmt(value, ".10g")] for pt, value in zip(points, results)]
    if len(rows) > PLAIN_ROWS:
        # plain aligned columns: drawing a rich table of thousands of rows costs more than the grid
        widths = [max(len(r[k]) for r in [header, *rows]) for k in range(len(header))]
        console.file.write(title + "\n" + "\n".join("  ".join(c.rjust(w) for c, w in zip(r, widths))
                                                    for r in [header, *rows]) + "\n")
        return
    table = Table(title=title)
    for col in header:
        table.add_column(col, justify="right")
    for row in rows:
        table.add_row(*row)
    console.print(table)


@app.command("simulate")
@user_errors
def simulate_cmd(model: Path = _MODEL, assignments: list[str] | None = _ASSIGN,
                 distribution: str = typer.Option("deterministic", "--distribution", "-d",
                                                  help="deterministic, exponential-service (use() times "
                                                       "exponential) or exponential (delays too)."),
                 seed: int = typer.Option(0, "--seed", help="Seed of the random times."),
                 as_json: Path | None = json_option("the bound, the simulated time and the MVA"),
                 process: str = _PROCESS, paper_phi: bool = _PAPER_PHI) -> None:
    """Simulate the model and print the symbolic bound next to the simulated time."""
    values = parse_assignments(assignments)
    cm = _compile(model, paper_phi)
    where = ", ".join(f"{k}={v:g}" for k, v in values.items()) or "no parameters"
    with evaluating(where):
        bound = cm.evaluate(values, process).T
    finite_result({f"T_{process}": bound}, where)
    sim = cm.simulate(values, process, distribution=distribution, seed=seed)
    error = (sim.time - bound) / sim.time if sim.time else 0.0
    mva = cm.mva(values, process)
    if as_json is not None:
        write_json(as_json, {f"T_{process}": bound, "simulated": sim.time, "relative_error": error,
                             "mva": mva, "mva_error": None if mva is None or not sim.time
                             else (sim.time - mva) / sim.time,
                             "distribution": distribution, "seed": seed, "uses": sim.uses,
                             "wall_s": sim.wall}, "result", indent=2)
    console.print(f"{model.name}: {process} at " + (", ".join(f"{k}={v:g}" for k, v in values.items()) or
                                                     "no parameters") + f" ({distribution}, seed {seed})",
                  highlight=False)
    table = Table()
    cols = ["bound T", "simulated", "error"] + (["MVA", "MVA error"] if mva is not None else []) + \
        ["services", "simulation s"]
    for col in cols:
        table.add_column(col, justify="right")
    extra = [fmt(mva, ".10g"), f"{(sim.time - mva) / sim.time * 100:.3f} %"] if mva is not None else []
    table.add_row(fmt(bound, ".10g"), fmt(sim.time, ".10g"), f"{error * 100:.3f} %", *extra, f"{sim.uses:,}",
                  f"{sim.wall:.3f}")
    console.print(table)
    if mva is not None:
        console.print("MVA: mean value analysis of the closed network (exact in the steady state with "
                      "exponential service).", style="dim", highlight=False)
    console.print("error = (simulated - bound) / simulated; the bound is a lower bound on the time.",
                  style="dim", highlight=False)


@app.command("generate")
@user_errors
def generate_cmd(program: Path = typer.Argument(..., help="Data-parallel Python program (a file defining "
                                                "program(dp, ...)); see docs/pamela.md."),
                 out: Path | None = typer.Option(None, "--out", "-o", help="Write the model here "
                                                    "(default: PROGRAM with .pam, beside it)."),
                 machine: str = typer.Option("machine.pam", "--machine", "-m", help="The machine model the "
                                             "model includes (a path relative to the model)."),
                 calibrate: bool = typer.Option(False, "--calibrate", help="Also calibrate the machine model "
                                                "on this computer and write it where the model includes it.")) -> None:
    """Generate the PAMELA model of a data-parallel program (the Modeling Engine)."""
    from perfcompose.pamela.engine import generate

    g = generate(program, machine=machine)
    target = out or program.with_suffix(".pam")
    target.write_text(g.text)
    console.print(f"wrote {target} (parameters {', '.join(g.parameters)}; {g.annotations} annotation"
                  f"{'s' if g.annotations != 1 else ''} used)", highlight=False)
    machine_path = target.parent / machine
    if calibrate:
        from perfcompose.pamela.machine import calibrate as run_calibration
        from perfcompose.pamela.machine import machine_text

        machine_path.write_text(machine_text(run_calibration(), "perfcompose pamela generate --calibrate"))
        console.print(f"wrote {machine_path} (calibrated here)", highlight=False)
    elif not machine_path.exists():
        console.print(f"{machine_path} does not exist yet: write it with --calibrate", style="dim",
                      highlight=False)


@user_errors
def vangemund(quick: bool = typer.Option(False, "--quick", help="Tiny sizes, one run each, a short "
                                         "calibration: checks that everything runs, not the figures."),
              out: Path = typer.Option(Path("vangemund"), "--out", "-o", help="Folder for the machine model "
                                       "and the generated models."),
              machine: Path | None = typer.Option(None, "--machine", "-m", help="Use this machine model "
                                                     "instead of calibrating one."),
              reps: int = typer.Option(5, "--reps", min=1, help="Timed runs per configuration (the least counts)."),
              clock: Clock = typer.Option("wall", "--clock", help="wall: elapsed time between barriers; cpu: "
                                          "processor time of the busiest worker (not inflated by other work "
                                          "on shared cores, but without waiting for messages)."),
              as_json: Path | None = json_option("the rows and cases")) -> None:
    from perfcompose.pamela.vangemund import run_vangemund_study

    with console.status("") as status:
        result = run_vangemund_study(out, quick=quick, reps=reps, machine=machine, clock=clock,
                           progress=lambda text: status.update(text))
    if as_json is not None:
        write_json(as_json, {
            "rows": [{"study": r.study, "alternative": r.alternative, "N": r.N, "P": r.P,
                      "predicted_s": r.predicted, "measured_s": r.measured, "error": r.error,
                      "spread": r.spread, "annotations": r.annotations, "eval_us": r.eval_us}
                     for r in result.rows],
            "cases": [{"study": c.study, "N": c.N, "P": c.P, "predicted_best": c.predicted_best,
                       "measured_best": c.measured_best, "distinct": c.distinct, "agrees": c.agrees}
                      for c in result.cases],
            "mean_abs_error": result.mean_abs_error}, "rows and cases", indent=2)
    best = {(c.study, c.N, c.P): c for c in result.cases}
    table = Table(title="van Gemund, Symbolic Cost Estimation of Parallel Applications: the four test codes here")
    for col, just in (("program", "left"), ("design alternative", "left"), ("N", "right"), ("P", "right"),
                      ("predicted \\[s]", "right"), ("measured \\[s]", "right"), ("spread", "right"),
                      ("error", "right"), ("best: predicted = measured", "left")):
        table.add_column(col, justify=just)
    for r in result.rows:
        c = best[(r.study, r.N, r.P)]
        mark = ""
        if r.alternative == c.predicted_best:
            mark = ("same program at this P" if not c.distinct else
                    "yes" if c.agrees else f"no (measured: {c.measured_best})")
        table.add_row(r.study, r.alternative, f"{r.N:,}", str(r.P), f"{r.predicted:.4g}", f"{r.measured:.4g}",
                      f"{r.spread * 100:.0f} %", f"{r.error * 100:+.1f} %", mark)
    console.print(table)
    distinct = [c for c in result.cases if c.distinct]
    agree = sum(c.agrees for c in distinct)
    worst = max(abs(r.error) for r in result.rows)
    console.print(f"average |error| {result.mean_abs_error * 100:.1f} % (max {worst * 100:.1f} %) over "
                  f"{len(result.rows)} configurations; predicted best = measured best in {agree} of "
                  f"{len(distinct)} cases (paper: < 15 %, all); models generated and compiled in "
                  f"{result.generate_s:.2f} s; machine model {result.machine}", highlight=False)
    console.print(f"error = (predicted - measured) / measured; measured ({clock} clock): the least of the runs "
                  "(the alternatives in turn, each worker on its own core), spread: (max - min) / min; every run "
                  "shares this computer's cores with whatever else runs.",
                  style="dim", highlight=False)
