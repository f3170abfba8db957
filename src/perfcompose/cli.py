"""The ``perfcompose`` command: one subcommand per job.

This module only builds the app: the root options and the list of commands. Each command lives in
``perfcompose.commands.<area>`` and is imported when it runs or its own help is shown, so that
``perfcompose --help`` starts fast (a test checks each listed help against the command's own).
Every :class:`~perfcompose.errors.PerfcomposeError` is printed as one message and the command
exits with status 2; no traceback reaches the user.
"""
from __future__ import annotations

import typer

from perfcompose import __version__
from perfcompose.commands.lazy_group import Entry, lazy_group
from perfcompose.limits import LimitOptions
from perfcompose.option_fields import cli_option

PAPER = (
    Entry("table3", "000 Table 3: GrPPi-like MapReduce (one node, pairwise reduction) for n threads; the paper's\n"
          "models recomposed, and the per-input slope measured here on Dask where n fits.", "mapreduce:paper_table3"),
    Entry("table5", "000 Table 5: MapReduce on Dask, measured vs predicted, by picture, strategy, n and m.",
          "mapreduce:paper_table5"),
    Entry("fig4", "000 Figure 4: Hadoop on 1-24 nodes x 1-24 threads, predicted by eq. 5 and 7 from Table 1\nrows "
          "11-13 (weak scaling, one input per thread).", "paper_tables:fig4"),
    Entry("calotoiu", "003 (SC19 workshop) Tables I-IV [us], modular models composed again from its Table I, beside "
          "000's.", "paper_tables:calotoiu"),
    Entry("vangemund", "Paper 004's case studies: MATMUL, ADI, GAUSS and PSRS in their design alternatives, run here\n"
          "on 1 and 2 processes, predicted by their generated PAMELA models.", "pamela.vangemund:vangemund"),
    Entry("latency", "The latency operators of seq, pipe and tpool against the executor's per-element stamps, on\nthe "
          "reference tasks: predicted from the tasks measured alone in the same round.", "paper_tables:latency"),
    Entry("table1", "000 Table 1: model and variability of every reference task, measured here (ns); an interrupted\n"
          "run resumes from its checkpoints in .perfcompose/.", "paper_tables:paper_table1"),
    Entry("table2", "000 Table 2: seq, tpool and pipe programs run here; modular vs monolithic vs measured.",
          "paper_tables:paper_table2"),
    Entry("table7", "000 Table 7: relation (iv), tpool_2(seq(a, b)) <= pipe(a, b), measured here.",
          "paper_tables:paper_table7"),
    Entry("table4", "000 Table 4: pipeline associativity and commutativity, measured here.",
          "paper_tables:paper_table4"),
    Entry("table6", "000 Table 6: layering neutrality, pipe of task pools vs task pool of pipes, measured here.",
          "paper_tables:paper_table6"),
    Entry("lobachev", "001 (Lobachev, Loogen): every case study's estimates, the paper's beside perfcompose's.",
          "paper_tables:lobachev"),
)

LOGGP = (
    Entry("convert", "Write a LogGP program in another form: the compact .npz that large programs read fast,\nJSON, or "
          "a GOAL schedule.", "loggp.convert:convert"),
    Entry("calibrate", "Measure L, o, g, G on two local MPI ranks (mpi4py), Netgauge-style; write a parameter file.",
          "loggp.calibrate:calibrate"),
    Entry("simulate", "Simulate a program of computation and communication steps under LogGP (paper 002).",
          "loggp.simulate:simulate"),
    Entry("trace", "Run an MPI program under perfcompose's tracer and write its traces and its GOAL schedule;\nwith "
          "--check, simulate the schedule beside the measured time.", "loggp.trace:trace"),
    Entry("check", "Simulate a traced run's schedule with LogGP parameters beside its measured time.",
          "loggp.trace:check"),
    Entry("whatif", "Simulate a traced run's schedule over a sweep of L, o, g and G and on another network:\nhow much "
          "latency or bandwidth the run tolerates before it slows by 1, 5, 10 %.", "loggp.trace:whatif"),
    Entry("gauss", "Section 5: blocked Gaussian elimination, predicted per block size and layout (and, with\n"
          "--measure, measured).", "loggp.gauss:gauss"),
)

PAMELA = (
    Entry("compile", "Print the simplified cost model T_<process> (as PAMELA text).", "pamela.compile:compile_cmd"),
    Entry("eval", "Evaluate T, phi, omega and delta of a process at the given parameter values; a range\n(P=1:1000, "
          "N=1e3:1e6:1e3) or list (P=1,2,4) evaluates T on the whole grid of points.", "pamela.eval:eval_cmd"),
    Entry("simulate", "Simulate the model and print the symbolic bound next to the simulated time.",
          "pamela.compile:simulate_cmd"),
    Entry("generate", "Generate the PAMELA model of a data-parallel program (the Modeling Engine).",
          "pamela.generate:generate_cmd"),
)

SKELETON = (
    Entry("forecast", "Forecast T(n,p) = T(n)/p + Ā(n,p): each part by its own method, a measured target left out.",
          "skeleton.forecast:forecast"),
    Entry("quality", "Penalty Ā(n,p) and Karp-Flatt serial fraction f(n,p) per p: constant is good, growing is not.",
          "skeleton.quality:quality"),
)

COMMANDS = (
    Entry("show", "Show an experiment: parameters, points, repetitions, median and coefficient of variation.",
          "experiments:show"),
    Entry("convert", "Convert an experiment to perfcompose JSON, CSV, Extra-P text or JSON, or a .extra-p archive.",
          "experiments:convert"),
    Entry("fit", "Fit a PMNF model c0 + sum c*x^i*log2(x)^j to every region x metric of an experiment.", "fit:fit"),
    Entry("analyze", "Fit every call path x metric of a profile, compose callers from callees, rank call paths by "
          "growth.", "analyze:analyze"),
    Entry("compose", "Compose the model of a program from models of its components; the first line is the model.",
          "compose:compose"),
    Entry("laws", "Check the relational laws (i)-(iv) of 000 section 5.1 for the given stages.", "compose:laws"),
    Entry("explore", "Best use of a thread budget: split over pipeline stages, or a task pool of the fused stages.",
          "compose:explore"),
    Entry("predict", "Predict a designed program: composed model, each component's share, and the bottleneck.",
          "predict:predict"),
    Entry("bench", "Time a target over a parameter grid; resumable from its checkpoint (OUT.checkpoint.jsonl).",
          "bench:bench"),
    Entry("profile", "Profile a Python program under cProfile over a parameter grid into call paths that analyze "
          "reads;\nresumable from its checkpoint (OUT.checkpoint.jsonl).", "profile:profile"),
    Entry("validate", "Run programs of nop, inc, qsort and your own stages (--task) for real, fit them (monolithic),\n"
          "compose them from their parts (modular) and report the error of the prediction, with its 90 %\ninterval, "
          "against the measurement.", "validation:validate"),
    Entry("mapreduce", "Run one pixel-histogram MapReduce job on Dask and print its per-phase times.",
          "mapreduce:run_one"),
    Entry("demo", "Measure nop, inc and qsort, fit them, compose the paper's Table-2 programs, plot, and write the "
          "report.", "demo:demo"),
    Entry("pamela", "PAMELA process models compiled to symbolic cost models, evaluated and simulated.", entries=PAMELA),
    Entry("loggp", "LogGP simulation of communication steps and programs; calibration from MPI.", entries=LOGGP),
    Entry("skeleton", "Skeleton-based estimation: forecast T(n,p) in n and p, penalty and serial fraction.",
          entries=SKELETON),
    Entry("paper", "Reproduce the papers' tables on this machine.", entries=PAPER),
)

app = typer.Typer(cls=lazy_group(COMMANDS), add_completion=False, no_args_is_help=True,
                  pretty_exceptions_enable=False,
                  help="Predict how fast a parallel program will run, from performance models of its parts.")


def _version(value: bool) -> None:
    if value:
        print(f"perfcompose {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit."),
          max_memory: str = cli_option(LimitOptions, "max_memory"),
          max_steps: float = cli_option(LimitOptions, "max_steps"),
          no_limits: bool = cli_option(LimitOptions, "no_limits")) -> None:
    """perfcompose: performance models of parts composed into the model of the whole."""
    from perfcompose.limits import parse_bytes, set_limits

    try:
        set_limits(parse_bytes(max_memory), max_steps, unlimited=no_limits)
    except Exception as exc:
        raise typer.BadParameter(str(exc), param_hint="--max-memory") from None


def main() -> None:
    """The typer application, as the console script runs it where :mod:`perfcompose.launch` hands it the command."""
    app(prog_name="perfcompose")
