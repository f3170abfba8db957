"""``perfcompose paper vangemund``: paper 004's case studies run here and predicted by their
generated PAMELA models."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from perfcompose.choices import Clock
from perfcompose.commands.common import Table, cli_command, console, json_option, write_json
from perfcompose.limits import check_steps
from perfcompose.option_fields import option, shared
from perfcompose.pamela.dataparallel.vangemund import run_vangemund_study


@dataclass(frozen=True)
class VanGemundCommand:
    quick: bool = option(False, "Tiny sizes, one run each, a short calibration: checks that everything runs, not the "
                                "figures.")
    out: Path = option(Path("vangemund"), "Folder for the machine model and the generated models.", aliases=("-o",))
    machine: Path | None = option(None, "Use this machine model instead of calibrating one.", aliases=("-m",))
    reps: int = option(5, "Timed runs per configuration (the least counts).", minimum=1)
    clock: Clock = option("wall", "wall: elapsed time between barriers; cpu: processor time of the busiest worker "
                                  "(not inflated by other work on shared cores, but without waiting for messages).")
    as_json: Path | None = shared(json_option("the rows and cases"))


@cli_command(VanGemundCommand)
def vangemund(o: VanGemundCommand) -> None:
    quick, reps, clock = o.quick, o.reps, o.clock
    # the four studies' configurations run for about a minute per repetition: 1e8 of the limits' steps
    check_steps((1 if quick else reps) * 1e8, f"{reps:,} timed runs of every configuration (--reps)")
    with console.status("") as status:
        result = run_vangemund_study(o.out, quick=quick, reps=reps, machine=o.machine, clock=clock,
                           progress=lambda text: status.update(text))
    if o.as_json is not None:
        write_json(o.as_json, {
            "rows": [{"study": r.study, "alternative": r.alternative, "N": r.N, "P": r.P,
                      "predicted_s": r.predicted, "measured_s": r.measured, "error": r.error,
                      "spread": r.spread, "annotations": r.annotations, "eval_us": r.eval_us}
                     for r in result.rows],
            "cases": [{**asdict(c), "agrees": c.agrees} for c in result.cases],
            "mean_abs_error": result.mean_abs_error}, "rows and cases", indent=2)
    best = {(c.study, c.N, c.P): c for c in result.cases}
    table = Table("program", "design alternative", "N", "P", "predicted \\[s]", "measured \\[s]", "spread", "error",
                  "best: predicted = measured", right=range(2, 8),
                  title="van Gemund, Symbolic Cost Estimation of Parallel Applications: the four test codes here")
    for r in result.rows:
        c = best[(r.study, r.N, r.P)]
        mark = ("" if r.alternative != c.predicted_best else "same program at this P" if not c.distinct else
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
