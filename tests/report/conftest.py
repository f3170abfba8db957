"""Inputs for the report tests: the parts measured in examples/tasks.csv as Table-1 rows, and a
validation study built from models (no program is run)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
TASKS = ROOT / "examples" / "tasks.csv"


@pytest.fixture(scope="session")
def part_rows() -> list[Any]:
    """nop, inc and qsort from examples/tasks.csv, fitted, as ``paper table1`` returns them."""
    from perfcompose.data import load
    from perfcompose.fit import PMNFFitter
    from perfcompose.validate.paper import PAPER_TABLE1, Table1Row

    exp = load(TASKS)
    rows = []
    for task in ("nop", "inc", "qsort"):
        part = exp.select(region=task)
        model = PMNFFitter(max_terms=1).fit(part).model_.with_meta(name=task, source=f"fit of {TASKS}:{task}")
        rows.append(Table1Row(task, part, model, (1.0, 2.0, 3.0, 4.0, 5.0), None, str(PAPER_TABLE1[task])))
    return rows


@pytest.fixture(scope="session")
def study(part_rows: list[Any]) -> Any:
    """Two programs 'measured' 5 % above what their parts compose to, with an interval on one."""
    from perfcompose.compose import compose
    from perfcompose.validate.modular import Comparison, Study

    parts = {r.task: r.model for r in part_rows}
    x = (1024.0, 16384.0, 262144.0)
    comps = []
    for k, cfg in enumerate(("pipe(inc, qsort)", "tpool_2(qsort)")):
        model = compose(cfg, parts, pipe="pointwise")
        predicted = np.array([float(model(x=v)) for v in x])
        measured = tuple(predicted * 1.05 / 1e9)
        errors = tuple(abs(predicted - np.array(measured) * 1e9) / (np.array(measured) * 1e9))
        band = {"low": tuple(predicted * 0.9), "high": tuple(predicted * 1.1)} if k == 0 else {}
        comps.append(Comparison(cfg, 2, x, measured, model, model, model, 0.01, errors, errors, **band))
    return Study(tuple(comps), parts, None, x=x, rounds=3, count=32)  # type: ignore[arg-type]
