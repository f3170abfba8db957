"""``validate``: programs run for real, fitted whole (monolithic) and composed from their parts (modular), and the
prediction's error against the measurement; and the rendering of such a study (validate, paper table2/4/6/7):
errors, intervals, disturbance."""
from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from perfcompose.bench.runner import BenchError, function_of, resolve_target
from perfcompose.bench.tasks import TASKS
from perfcompose.choices import Workers
from perfcompose.commands.common import Table, cli_command, one_bar, records_json, shared_option, write_json
from perfcompose.commands.components import x_values
from perfcompose.commands.consoles import console, err_console, progress
from perfcompose.commands.reports import page
from perfcompose.limits import check_memory, check_steps
from perfcompose.option_fields import option, shared
from perfcompose.report.study import study_report
from perfcompose.validate.modular import study


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}"


def _say(text: str) -> None:
    """A sentence of the summary, never broken inside a number and its unit (output to a pipe is not wrapped)."""
    console.print(text, soft_wrap=True)


def _warn(text: str) -> None:
    """A warning, on standard error, laid out like :func:`_say`."""
    err_console.print(f"[yellow]warning:[/yellow] {text}", soft_wrap=True)


def _value(v: float) -> str:
    return f"{v:.4g}"


def summary(result: Any) -> dict[str, Any]:
    """The study's headline figures: median and worst calibrated error over all configurations and
    over the undisturbed ones, how many were disturbed, and the intervals' coverage."""
    comps = result.comparisons
    quiet = [c for c in comps if not c.disturbed]
    errs = [c.error_calibrated for c in comps]
    quiet_errs = [c.error_calibrated for c in quiet]
    return {"median_calibrated": float(np.median(errs)), "worst_calibrated": float(max(errs)),
            "median_paper": float(np.median([c.error_paper for c in comps])),
            "worst_paper": float(max(c.error_paper for c in comps)),
            "median_undisturbed": float(np.median(quiet_errs)) if quiet_errs else None,
            "worst_undisturbed": float(max(quiet_errs)) if quiet_errs else None,
            "disturbed": [c.configuration for c in comps if c.disturbed], "coverage": result.coverage,
            "width": result.width,
            "level": comps[0].level if comps else 0.9}


def print_study(result: Any, title: str, paper: Mapping[str, str] | None = None) -> None:
    """The study's table, its summary line, its intervals' coverage and its warnings."""
    cores = os.cpu_count() or 1
    level = result.comparisons[0].level if result.comparisons else 0.9
    xmax = max(result.x)
    table = Table(title=title)
    cols = ["configuration", "monolithic \\[ns]", "modular \\[ns]", "lead coef. err %",
            "err % papers' ops (med / max)", "err % calibrated (med / max)",
            f"calibrated at x={xmax:g} \\[ns] ({100 * level:g} % interval)", f"measured at x={xmax:g} \\[ns]",
            "inside"]
    if paper:
        cols.insert(2, "paper: monolithic \\[ns]")
    # at 80 columns the paper's model, the lead coefficient and the papers' operators give way first
    optional = {"paper: monolithic \\[ns]": 1, "lead coef. err %": 2, "modular \\[ns]": 3,
                "err % papers' ops (med / max)": 4, "monolithic \\[ns]": 5}
    for col in cols:
        table.add_column(col, justify="left" if "[ns]" in col or col == "configuration" else "right",
                         optional=optional.get(col, False))
    for c in result.comparisons:
        name = (c.configuration + (" +" if c.workers > cores else "") + (" !" if c.disturbed else "")
                + (" ?" if c.warning else ""))
        k = c.x.index(xmax)
        predicted = float(c.calibrated(x=xmax))
        row = [name, str(c.monolithic.rounded()), str(c.modular.rounded()), _pct(c.lead_error),
               f"{_pct(c.error_paper)} / {_pct(max(c.errors_paper))}",
               f"{_pct(c.error_calibrated)} / {_pct(max(c.errors_calibrated))}",
               "not trusted (?)" if c.warning else
               f"{_value(predicted)} [{_value(c.low[k])}, {_value(c.high[k])}]" if c.low else _value(predicted),
               _value(c.measured[k] * 1e9), f"{sum(c.inside)}/{len(c.inside)}" if c.inside else "-"]
        if paper:
            row.insert(2, paper.get(c.configuration, "-"))
        table.add_row(*row)
    console.print(table)
    s = summary(result)
    _say(f"median over configurations of the per-configuration median error: papers' operators "
         f"{_pct(s['median_paper'])} %, calibrated {_pct(s['median_calibrated'])} %; "
         f"worst: {_pct(s['worst_paper'])} % / {_pct(s['worst_calibrated'])} %")
    if s["disturbed"]:
        _say(f"undisturbed configurations ({len(result.comparisons) - len(s['disturbed'])}): calibrated "
             f"median {_pct(s['median_undisturbed'])} %, worst {_pct(s['worst_undisturbed'])} %")
    if s["coverage"] is not None:
        ops = [c.held_out_error for c in result.comparisons if c.held_out_error]
        _say(f"{100 * s['coverage']:.0f} % of the measured points lie inside their {100 * level:g} % "
             f"intervals, of median width {s['width']:.3f} of the prediction")
        _say("(intervals: " + (f"the predictor's error on the other programs, {100 * min(ops):.1f}-"
                               f"{100 * max(ops):.1f} % (leave one program out, scaled by how far the "
                               "co-run measurements move each prediction)" if ops else
                               "bootstrap over the rounds, noise only: too few other programs to learn "
                               "the predictor's error from") + ")")
    for c in result.comparisons:
        if c.warning:
            _warn(f"? {c.configuration} is not predicted: {c.warning}")
    print_context(result)
    _say(f"x = {', '.join(f'{v:g}' for v in result.x)}; {result.rounds} rounds of {result.count}+ elements "
         f"per run, {result.workers}; errors are |predicted - measured| / measured per x")
    if result.part_x:
        _say(f"parts timed alone at {len(result.part_x)} sizes from {min(result.part_x):g} to "
             f"{max(result.part_x):g}: " + ", ".join(f"{p} = {m.rounded()} \\[{m.unit or 'no unit'}]"
                                          for p, m in result.parts.items()))
    if any(c.workers > cores for c in result.comparisons):
        _warn(f"+ more workers than this machine's {cores} cores: the workers "
              "share the cores, and the predictions are at least the total work divided by the cores")
    for cfg, why in result.skipped:
        _say(f"skipped {cfg}: {why}")
    if result.retaken:
        _say(f"{result.retaken} timings taken again because other work took the cores away")
    if s["disturbed"]:
        worst = max(c.wait_share for c in result.comparisons)
        _warn(f"! {len(s['disturbed'])} configurations were measured while "
              f"other work took the cores (up to {100 * worst:.0f} % of a run spent waiting for a core): "
              f"disturbed runs were taken again within a time budget, {result.disturbed} of them could not "
              "be (their times include that work, and their errors are not only the operators'); "
              "measure again on a quieter machine (--restart)")
    elif result.disturbed:
        _warn(f"{result.disturbed} runs lost their cores to other work in "
              "every retake: their times include that work; measure again on a quieter machine "
              "(--restart)")


def print_context(result: Any) -> None:
    """What the parts measured in context showed: parts whose cost changed with the data they
    receive, pairs that slow each other down, pools that run one thread at a time, and those
    pools on processes."""
    for e in result.context_effects:
        _say(f"in context: {e.part} takes {e.ratio:.2f}x its time on fresh input (at x={e.x:g}); "
             "the prediction uses the time in context")
    for sd in result.slowdowns:
        if sd.locked:
            _say(f"lock: the copies of {sd.a} cannot run in parallel ({sd.median:.2f}x beside each other, "
                 "a lock such as the GIL): its pools are predicted no faster than one worker, nor than two "
                 "copies side by side hand the lock over")
        elif sd.threaded and sd.a == sd.b:
            _say(f"own threads: {sd.a} keeps more than one core busy on its own (a BLAS, a library's thread "
                 f"pool); its copies oversubscribe the cores and run {sd.median:.2f}x slower beside each "
                 "other, as its pools are predicted")
        elif sd.notable:
            _say(f"co-run: {sd.a} runs {sd.median:.2f}x slower ({sd.low:.2f}x-{sd.high:.2f}x over x) "
                 f"beside {sd.b}")
    xmax = max(result.x) if result.x else 0
    for p in result.process_options:
        _say(f"with --workers processes: {p.program} predicted {_value(float(p.processes[-1]))} ns instead of "
             f"{_value(float(p.threads[-1]))} ns at x={xmax:g} (no lock between processes; each element "
             "pickled there and back)")


def report_study(result: Any, title: str, json_out: Path | None, html: Path | None,
                 paper: Mapping[str, str] | None = None) -> None:
    """The study printed (:func:`print_study`), and written as JSON and as a page where asked."""
    print_study(result, title, paper)
    if json_out:
        _write_study(result, json_out, paper or {})
    if html:
        page(html, study_report, result, title, paper=paper)


def _write_study(result: Any, out: Path, paper: Mapping[str, str]) -> None:
    records = [{**c.to_json(), **({"paper_monolithic": paper[c.configuration]} if c.configuration in paper else {})}
               for c in result.comparisons]
    doc = {"x": list(result.x), "rounds": result.rounds, "workers": result.workers, "configurations": records,
           "skipped": [{"configuration": c, "why": w} for c, w in result.skipped],
           "retaken": result.retaken, "disturbed": result.disturbed, "summary": summary(result),
           "parts": {p: str(m) for p, m in result.parts.items()}, "part_x": list(result.part_x),
           "overheads": {"stream_ns": [float(result.overheads.stream(x=v)) for v in result.x],
                         "pipe_floor_ns": [float(result.overheads.pipe(x=v)) for v in result.x]},
           "probes_ns": {t: [v * 1e9 for v in ts] for t, ts in result.measured.items() if "touch" in t},
           "context_effects": [e.to_json() for e in result.context_effects],
           "slowdowns": [sd.to_json() for sd in result.slowdowns],
           "process_options": [p.to_json(result.x) for p in result.process_options]}
    write_json(out, doc, "records")


def task_functions(specs: list[str]) -> dict[str, Callable[[Any], Any]]:
    """``NAME=module:function`` -> the callables a study runs as components."""
    if os.getcwd() not in sys.path:  # modules next to where the command runs, as python -m finds them
        sys.path.insert(0, os.getcwd())
    functions: dict[str, Callable[[Any], Any]] = {name: TASKS[name].run for name in ("nop", "inc", "qsort")}
    given: set[str] = set()
    for spec in specs:
        name, sep, target = spec.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier() or not target:
            raise BenchError(f"cannot read the task {spec!r}", hint="write NAME=module:function, e.g. "
                             "--task smooth=examples.user_stages:smooth")
        if name in given:
            raise BenchError(f"the task {name!r} is given twice")
        given.add(name)
        functions[name] = (TASKS[target].run if target in TASKS
                           else resolve_target(target, None, None)[0].run)  # type: ignore[attr-defined]
    return functions


def input_function(spec: str) -> Callable[[float], Any]:
    """``module:function`` making one data element of size x."""
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    module_name, sep, func_name = spec.partition(":")
    if not sep or not module_name or not func_name:
        raise BenchError(f"cannot read the input {spec!r}", hint="write module:function, e.g. "
                         "--input user_stages:signal")
    return function_of(spec, hint="run from the folder that holds it, or add that folder to PYTHONPATH")[1]


def run_composition_study(configurations: list[str], xs: tuple[float, ...], rounds: int, count: int, workers: str,
              max_workers: int | None, restart: bool, functions: Any = None, make: Any = None) -> Any:
    """Run a validation study with a progress bar; finished measurements are kept in .perfcompose/,
    and the command says where."""
    kept = Path(".perfcompose")
    with progress() as bar:
        result = study(configurations, xs, rounds=rounds, count=count, workers=workers, max_workers=max_workers,
                       checkpoints=kept, restart=restart, progress=one_bar(bar), functions=functions, make=make)
    err_console.print(f"measurements kept in {kept.resolve()}: a rerun resumes from them, --restart measures "
                      "anew; delete the folder to free its space", highlight=False, soft_wrap=True)
    return result


@dataclass(frozen=True)
class ValidateCommand:
    terms: list[str] = option(..., "Programs to run, e.g. 'pipe(inc, qsort)' 'tpool_2(qsort)'.", argument=True)
    x: list[str] = option(("1024:262144",), "Input sizes (LO:HI = powers of two, or a list).")
    rounds: int = option(5, "Interleaved rounds (repetitions).", flag="--reps", minimum=1, aliases=("--rounds",))
    count: int = option(32, "Elements per run, at least (more where short).", minimum=2)
    workers: Workers = option("threads", "What runs the stages.")
    json_out: Path | None = shared(records_json())
    restart: bool = shared_option("restart")
    html: Path | None = shared_option("html")
    task: list[str] = option((), "A stage of your own, NAME=module:function (a function of one data element), e.g. "
                                 "--task smooth=user_stages:smooth; repeatable. Built-in: nop, inc, qsort.")
    input_: str | None = option(None, "module:function making one data element of size x (default: x random 32-bit "
                                      "ints).", flag="--input")


@cli_command(ValidateCommand)
def validate(o: ValidateCommand) -> None:
    xs = tuple(x_values(o.x))
    check_memory(8.0 * max(xs) * o.count, f"{o.count} inputs of x = {max(xs):g} values (--x, --count)")
    # each program and its parts see every element of every input once a round: a quarter step each
    check_steps(0.25 * o.rounds * len(o.terms) * o.count * sum(xs), f"{o.rounds:,} rounds of {len(o.terms)} "
                f"program(s) on {o.count} inputs of each x (--reps, --count, --x)")
    functions = task_functions(o.task) if o.task else None
    make = input_function(o.input_) if o.input_ else None
    result = run_composition_study(o.terms, xs, o.rounds, o.count, o.workers, 2 * (os.cpu_count() or 1), o.restart,
                                   functions, make)
    report_study(result, "modular vs monolithic vs measured (000 section 4)", o.json_out, o.html)
