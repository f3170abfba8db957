"""Cost per statement of a data-parallel program: its model with every other statement costing
nothing (``generate(only=...)``) against the busiest processor's time on that line in a traced run
(:func:`perfcompose.pamela.dataparallel.runtime.run_lines`); lines without a cost predict 0.
"""
from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from perfcompose.pamela.compile.costmodel import compile_file
from perfcompose.pamela.dataparallel.modeling_engine import generate
from perfcompose.pamela.dataparallel.runtime import run_lines

__all__ = ["Phase", "phases"]


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
    known = {(f, n) for f, n, _ in statements}
    for key in sorted({k for lines in per_processor for k in lines} - known):
        source = _source_line(*key)
        if "dp.array(" not in source:  # a declaration's filling is not part of a run's time
            out.append(Phase(key[0], key[1], source, 0.0, measured(key), modelled=False))
    return out
