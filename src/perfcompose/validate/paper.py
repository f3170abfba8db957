"""The papers' own numbers (000 Tables 1-2) and their reproduction on this machine.

``table1`` measures the reference tasks and fits each (000 Table 1); ``table2`` composes the
Table-2 configurations from models of their parts, next to the paper's modular and monolithic
models.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from perfcompose.bench.runner import CallableTarget, run_sweep
from perfcompose.bench.tasks import TASKS
from perfcompose.compose.operators import compose
from perfcompose.data.experiment import Experiment
from perfcompose.fit import PMNFFitter
from perfcompose.model import Model
from perfcompose.variation import coefficient_of_variation

#: 000 Table 1: task -> model [ns]
PAPER_TABLE1: dict[str, str] = {
    "nop": "5422.97",
    "inc": "536.185*x",
    "qsort": "1034.17*x*log2(x)",
    "map_small": "197598",
    "map_medium": "1274060",
    "map_large": "11410300",
    "reduce_p": "38316",
    "reduce_v": "0.353395*x",
}

#: 000 Table 2: configuration, monolithic model, modular model [ns]; its task pool rows run qsort
#: on n = 1 to 24 threads, as Table 6's rows (below) by n
PAPER_TABLE2: list[tuple[str, str, str]] = [
    ("seq(qsort, nop)", "1037.42*x*log2(x)", "1034.17*x*log2(x) + 5422.97"),
    ("seq(qsort, inc)", "1063.25*x*log2(x)", "1034.17*x*log2(x) + 536.185*x"),
    ("seq(inc, qsort)", "1070.71*x*log2(x)", "1034.17*x*log2(x) + 536.185*x"),
    ("seq(inc, inc)", "1030.44*x", "1072.37*x"),
    ("seq(inc, nop)", "540.897*x", "536.185*x + 5422.97"),
] + [
    (f"tpool_{n}(qsort)", mono, mod) for n, mono, mod in
    ((1, "1072.01*x*log2(x)", "1034.17*x*log2(x)"), (2, "553.72*x*log2(x)", "517.09*x*log2(x)"),
     (4, "291.46*x*log2(x)", "258.54*x*log2(x)"), (8, "151.31*x*log2(x)", "129.27*x*log2(x)"),
     (12, "108.34*x*log2(x)", "86.18*x*log2(x)"), (24, "70.25*x*log2(x)", "43.09*x*log2(x)"))
] + [
    ("pipe(qsort, nop)", "1086.11*x*log2(x)", "1034.17*x*log2(x)"),
    ("pipe(qsort, inc)", "1105.29*x*log2(x)", "1034.17*x*log2(x)"),
    ("pipe(inc, qsort)", "1076.89*x*log2(x)", "1034.17*x*log2(x)"),
    ("pipe(inc, inc)", "677.05*x", "536.185*x"),
    ("pipe(inc, nop)", "670.32*x", "536.185*x"),
]

#: repetitions per point: rounds over the whole grid x repetitions at each visit
QUICK_ROUNDS_T1, QUICK_REPS_T1 = 11, 3
FULL_ROUNDS_T1, FULL_REPS_T1 = 16, 4
QUICK_REPS, FULL_REPS = QUICK_ROUNDS_T1 * QUICK_REPS_T1, FULL_ROUNDS_T1 * FULL_REPS_T1
#: a timing that lost the core mid-call is taken again up to this many times
PREEMPTION_RETRIES = 5


@dataclass(frozen=True)
class Table1Row:
    """One task of Table 1 as measured here."""

    task: str
    experiment: Experiment
    model: Model
    #: coefficient of variation quartiles (min, 0.25, median, 0.75, max) in %, for swept tasks
    cv: tuple[float, ...] | None
    #: relative standard deviation in %, for tasks measured at one size
    std: float | None
    paper: str
    #: timings taken again because the OS gave the core to other work mid-call
    preempted: int = 0


def _for_task(progress: Callable[[str, int, int], None], name: str) -> Callable[[int, int, tuple[float, ...]], None]:
    """A sweep's progress callback that reports to ``progress`` under the task's name."""
    return lambda k, n, _coordinate: progress(name, k, n)


def table1(quick: bool = True, tasks: tuple[str, ...] | None = None,
           progress: Callable[[str, int, int], None] | None = None, checkpoints: Path | None = None,
           restart: bool = False) -> list[Table1Row]:
    """Measure and model each reference task (times in ns, as the paper's Table 1).

    ``quick``: 33 sizes x = 2^10 ... 2^18, a quarter power of two apart, 33 repetitions taken
    in 11 rounds over all sizes. Otherwise the paper's 256 sizes 1,024 ... 262,144, with 64
    repetitions (16 rounds of 4) instead of the paper's 256. The rounds keep a burst of other
    work on the machine from bending the curve at a few sizes, and a timing during which the OS
    gave the core to other work (wall time well above the thread's CPU time) is taken again;
    one preempted in every retake counts its thread's CPU time. Models have one term besides the
    constant, as the paper's Table 1.
    With ``checkpoints`` (a folder) every task's sweep is resumable from its checkpoint there,
    like the other tables' (``restart`` discards them).
    """
    rows = []
    for name in tasks or tuple(PAPER_TABLE1):
        task = TASKS[name]
        task.warm()
        # a task without parameters is timed per data element: M[map](1) of eq. 5
        grid = {p: (task.quick_grid if quick else task.grid)[p] for p in task.params} or {"x": (1.0,)}
        rounds, reps = (QUICK_ROUNDS_T1, QUICK_REPS_T1) if quick else (FULL_ROUNDS_T1, FULL_REPS_T1)
        if not task.params:
            reps *= 4
        target = CallableTarget(task.run, task.setup, retry_preempted=PREEMPTION_RETRIES, cpu_when_preempted=True)
        checkpoint = None if checkpoints is None else \
            Path(checkpoints) / f"table1_{name}_{'quick' if quick else 'full'}.checkpoint.jsonl"
        result = run_sweep(target, grid, reps=reps, warmup=1, rounds=rounds, checkpoint=checkpoint, restart=restart,
                           identity={"target": name, "table": "000 Table 1"},
                           progress=None if progress is None else _for_task(progress, name))
        result.values = {c: [v * 1e9 for v in vs] for c, vs in result.values.items()}
        exp = result.experiment(region=name, unit="ns", source=f"perfcompose bench {name}")
        if task.params:
            model = PMNFFitter(max_terms=1).fit(exp).model_
            cvs = [coefficient_of_variation(p.values) * 100 for p in exp.series[0].points if len(p.values) > 1]
            cv, std = tuple(float(q) for q in np.quantile(cvs, [0, 0.25, 0.5, 0.75, 1.0])), None
        else:
            vals = np.array(exp.series[0].points[0].values)
            model = Model.constant(float(np.median(vals)), params=("x",), unit="ns")
            cv, std = None, coefficient_of_variation(vals) * 100
        rows.append(Table1Row(name, exp, model.with_meta(name=name, unit="ns"), cv, std, PAPER_TABLE1[name],
                              target.preempted))
    return rows


@dataclass(frozen=True)
class Table2Row:
    """One configuration of Table 2: composed from the parts measured here, and the paper's."""

    configuration: str
    modular: Model
    paper_modular: Model
    paper_monolithic: Model


def table2(parts: Mapping[str, Model]) -> list[Table2Row]:
    """Compose every Table-2 configuration from the given part models (nop, inc, qsort)."""
    return [Table2Row(cfg, compose(cfg, parts, pipe="asymptotic"), Model.parse(mod, unit="ns"),
                      Model.parse(mono, unit="ns"))
            for cfg, mono, mod in PAPER_TABLE2]


#: 000 Table 4: pipeline associativity and commutativity, monolithic models [ns]
PAPER_TABLE4: list[tuple[str, str]] = [
    ("pipe(pipe(qsort, inc), nop)", "1057.54*x*log2(x)"),
    ("pipe(qsort, pipe(inc, nop))", "1092.77*x*log2(x)"),
    ("pipe(pipe(qsort, nop), inc)", "1068.45*x*log2(x)"),
    ("pipe(qsort, pipe(nop, inc))", "1098.45*x*log2(x)"),
    ("pipe(pipe(inc, qsort), nop)", "1060.94*x*log2(x)"),
    ("pipe(inc, pipe(qsort, nop))", "1078.37*x*log2(x)"),
    ("pipe(pipe(inc, nop), qsort)", "1068.17*x*log2(x)"),
    ("pipe(inc, pipe(nop, qsort))", "1129.66*x*log2(x)"),
]

#: 000 Table 6: layering neutrality, monolithic models [ns] by n
PAPER_TABLE6: list[tuple[str, str]] = [
    (f"pipe(tpool_{n}(qsort), tpool_{n}(inc))", a) for n, a in
    ((1, "1101.71*x*log2(x)"), (2, "578.47*x*log2(x)"), (4, "298.89*x*log2(x)"), (8, "165.51*x*log2(x)"))
] + [
    (f"tpool_{n}(pipe(qsort, inc))", b) for n, b in
    ((1, "1072.10*x*log2(x)"), (2, "602.41*x*log2(x)"), (4, "315.89*x*log2(x)"), (8, "181.19*x*log2(x)"))
]

#: 000 Table 7: tpool_2 of seq against the pipe with the same two threads, monolithic [ns]
PAPER_TABLE7: list[tuple[str, str]] = [
    ("tpool_2(seq(qsort, nop))", "546.40*x*log2(x)"), ("pipe(qsort, nop)", "1086.11*x*log2(x)"),
    ("tpool_2(seq(qsort, inc))", "561.84*x*log2(x)"), ("pipe(qsort, inc)", "1105.29*x*log2(x)"),
    ("tpool_2(seq(inc, qsort))", "564.59*x*log2(x)"), ("pipe(inc, qsort)", "1076.89*x*log2(x)"),
    ("tpool_2(seq(inc, inc))", "607.06*x"), ("pipe(inc, inc)", "677.05*x"),
    ("tpool_2(seq(inc, nop))", "355.67*x"), ("pipe(inc, nop)", "670.32*x"),
]


def paper_configurations(table: str) -> list[tuple[str, str]]:
    """The configurations of one of 000's validation tables with the paper's monolithic model."""
    if table == "table2":
        return [(cfg, mono) for cfg, mono, _ in PAPER_TABLE2]
    tables = {"table4": PAPER_TABLE4, "table6": PAPER_TABLE6, "table7": PAPER_TABLE7}
    return list(tables[table])


#: sizes and rounds of the quick and the full validation
QUICK_X = tuple(float(2 ** k) for k in range(10, 19))
FULL_X = tuple(float(round(2 ** (k / 4))) for k in range(40, 73))
QUICK_ROUNDS, FULL_ROUNDS = 5, 11
