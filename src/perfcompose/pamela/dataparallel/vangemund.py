"""Paper 004's experiments on this machine: MATMUL, ADI, GAUSS and PSRS in their design alternatives,
run for real (the alternatives in turn in the same workers) and predicted by their generated
models; per (study, N, P) the alternative predicted fastest against the one measured fastest. And
the cost per statement of a data-parallel program (:func:`phases`): its model with every other
statement costing nothing (``generate(only=...)``) against the busiest processor's time on that line
in a traced run (:func:`perfcompose.pamela.dataparallel.runtime.run_lines`); lines without a cost predict 0.
"""
from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from perfcompose.pamela.compile.costmodel import compile_file
from perfcompose.pamela.dataparallel.calibration import (
    FULL_COLUMN_SIDES,
    FULL_SIDES,
    FULL_SIZES,
    QUICK_SIDES,
    QUICK_SIZES,
    calibrate,
)
from perfcompose.pamela.dataparallel.machine_model import machine_text
from perfcompose.pamela.dataparallel.modeling_engine import generate
from perfcompose.pamela.dataparallel.runtime import run_alternatives, run_lines

__all__ = ["Study", "STUDIES", "VanGemundRow", "Case", "StudyResult", "run_vangemund_study", "PROGRAMS", "Phase",
           "phases"]

#: where the four programs live
PROGRAMS = Path(__file__).resolve().parent / "cases"  # installed with the package


@dataclass(frozen=True)
class Study:
    """One of the paper's test codes: its design alternatives (label, program file) and sizes."""

    name: str
    alternatives: tuple[tuple[str, str], ...]
    sizes: tuple[int, ...]
    quick_sizes: tuple[int, ...]


STUDIES = (
    Study("MATMUL", (("row broadcast (A on i, B, C on j)", "matmul_bcast.py"),
                     ("B gathered (A, B, C on i)", "matmul_gather.py")), (512, 1024), (64,)),
    Study("ADI", (("i axis (rows)", "adi_i.py"), ("j axis (columns)", "adi_j.py")), (1024, 2048), (64,)),
    Study("GAUSS", (("block", "gauss_block.py"), ("cyclic", "gauss_cyclic.py")), (512, 1024), (48,)),
    Study("PSRS", (("original", "psrs_original.py"), ("improved", "psrs_improved.py")),
          (2 ** 20, 2 ** 21), (2 ** 12,)),
)


@dataclass(frozen=True)
class VanGemundRow:
    """One configuration: predicted and measured seconds."""

    study: str
    alternative: str
    N: int
    P: int
    predicted: float
    measured: float
    spread: float        #: (max - min) / min of the measured runs
    annotations: int
    eval_us: float       #: one evaluation of the compiled model, microseconds

    @property
    def error(self) -> float:
        """(predicted - measured) / measured."""
        return (self.predicted - self.measured) / self.measured


@dataclass(frozen=True)
class Case:
    """One (study, N, P): which alternative the model and the measurement rank first."""

    study: str
    N: int
    P: int
    predicted_best: str
    measured_best: str
    distinct: bool       #: False where the alternatives' models predict the same time (one program)

    @property
    def agrees(self) -> bool:
        return self.predicted_best == self.measured_best or not self.distinct


@dataclass(frozen=True)
class StudyResult:
    rows: tuple[VanGemundRow, ...]
    cases: tuple[Case, ...]
    machine: Path
    generate_s: float    #: seconds to generate and compile every model

    @property
    def mean_abs_error(self) -> float:
        return sum(abs(r.error) for r in self.rows) / len(self.rows)


def run_vangemund_study(out: Path, *, quick: bool = False, processors: Sequence[int] = (1, 2), reps: int = 5,
              studies: Sequence[Study] = STUDIES, machine: Path | None = None,
              progress: Callable[[str], None] | None = None, clock: str = "wall") -> StudyResult:
    """Calibrate the machine (unless ``machine`` is given), generate every model into ``out``,
    measure and predict every configuration."""
    say = progress or (lambda text: None)
    out.mkdir(parents=True, exist_ok=True)
    target = out / "machine.pam"
    if machine is None:
        say("calibrating the machine model")
        params = calibrate(QUICK_SIZES if quick else FULL_SIZES, reps=3 if quick else 7, clock=clock,
                           sides=QUICK_SIDES if quick else FULL_SIDES,
                           column_sides=QUICK_SIDES if quick else FULL_COLUMN_SIDES, workers=tuple(processors))
        target.write_text(machine_text(params, f"perfcompose paper vangemund, {clock} clock"))
    elif Path(machine).resolve() != target.resolve():
        target.write_text(Path(machine).read_text())
    rows: list[VanGemundRow] = []
    cases: list[Case] = []
    gen_s = 0.0
    for study in studies:
        models = {}
        for label, name in study.alternatives:
            t0 = time.perf_counter()
            g = generate(PROGRAMS / name, machine="machine.pam")
            path = out / (Path(name).stem + ".pam")
            path.write_text(g.text)
            models[label] = (compile_file(path), g.annotations, name)
            gen_s += time.perf_counter() - t0
        for N in (study.quick_sizes if quick else study.sizes):
            for P in processors:
                say(f"{study.name} N={N} P={P}")
                group = _measure_group(study.name, models, N, P, 1 if quick else reps, clock)
                rows += group
                best_p = min(group, key=lambda r: r.predicted)
                best_m = min(group, key=lambda r: r.measured)
                spread = max(r.predicted for r in group) / min(r.predicted for r in group) - 1
                cases.append(Case(study.name, N, P, best_p.alternative, best_m.alternative, spread > 0.01))
    return StudyResult(tuple(rows), tuple(cases), target, gen_s)


def _predict(cm, values: dict[str, int]) -> tuple[float, float]:
    """The compiled model's time at ``values`` and the microseconds one evaluation takes."""
    fn = cm.function()
    args = [values[p] for p in cm.parameters]
    predicted = fn(*args)
    t0 = time.perf_counter()
    k = 0
    while time.perf_counter() - t0 < 0.02:
        fn(*args)
        k += 1
    return predicted, (time.perf_counter() - t0) / k * 1e6


def _measure_group(study: str, models: dict, N: int, P: int, reps: int, clock: str) -> list[VanGemundRow]:
    """Every alternative at (N, P): predicted, and measured in turn in the same workers (one run of
    each per round), each by its least time over ``reps`` runs: other work on the machine only
    adds time, and the machine model's micro-benchmarks are taken the same way."""
    labels = list(models)
    measured = run_alternatives([PROGRAMS / models[label][2] for label in labels], {"N": N}, P, reps=reps,
                                clock=clock)  # type: ignore[arg-type]
    group: list[VanGemundRow] = []
    for label, times in zip(labels, measured):
        cm, notes, _ = models[label]
        predicted, eval_us = _predict(cm, {"N": N, "P": P})
        m = min(times)
        group.append(VanGemundRow(study, label, N, P, predicted, m, (max(times) - m) / m, notes, eval_us))
    return group


@dataclass(frozen=True)
class Phase:
    """One statement: where it is, predicted and measured seconds over the whole run."""

    file: str
    line: int
    source: str
    predicted: float
    measured: float
    modelled: bool = True  #: False for a line the model gives no cost

    @property
    def error(self) -> float:
        """(predicted - measured) / measured (0 where nothing was measured)."""
        return (self.predicted - self.measured) / self.measured if self.measured > 0 else 0.0


def _source_line(file: str, line: int) -> str:
    try:
        return Path(file).read_text(encoding="utf-8").splitlines()[line - 1].strip()
    except (OSError, IndexError, UnicodeDecodeError):
        return ""


def phases(program: str | Path, values: Mapping[str, int], P: int, machine: str | Path,
           clock: str = "wall") -> list[Phase]:
    """Every statement of ``program`` at ``values`` (its parameters) on ``P`` processors, its
    model compiled against the machine model file ``machine``."""
    statements = list(dict.fromkeys(generate(program, machine=None).statements))
    per_processor = run_lines(program, values, P, clock)  # type: ignore[arg-type]

    def measured(key: tuple[str, int]) -> float:
        return max(lines.get(key, 0.0) for lines in per_processor)

    out: list[Phase] = []
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "machine.pam").write_text(Path(machine).read_text())
        for i, (file, line, source) in enumerate(statements):
            model = Path(tmp) / f"statement{i}.pam"
            model.write_text(generate(program, only=(file, line)).text)
            predicted = compile_file(model).evaluate({**values, "P": P}).T
            out.append(Phase(file, line, source, float(predicted), measured((file, line))))
    for key in sorted({k for lines in per_processor for k in lines} - {(f, n) for f, n, _ in statements}):
        source = _source_line(*key)
        if "dp.array(" not in source:  # a declaration's filling is not part of a run's time
            out.append(Phase(key[0], key[1], source, 0.0, measured(key), modelled=False))
    return out
