"""Caliper JSON profiles (the split format Hatchet reads) written for the tests: one file per run,
each call path's exclusive time per rank."""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path


def write_caliper_json(path: Path, times: Mapping[str, float], ranks: int = 2) -> Path:
    """A run whose call paths (``main->solve``) took ``times`` seconds each on every one of ``ranks``."""
    paths = list(times)
    nodes = []
    for p in paths:
        caller, _, name = p.rpartition("->")
        nodes.append({"label": name, "column": "path", **({"parent": paths.index(caller)} if caller else {})})
    data = [[times[p], rank, k] for k, p in enumerate(paths) for rank in range(ranks)]
    path.write_text(json.dumps({"data": data, "columns": ["sum#time.duration", "mpi.rank", "path"],
                                "column_metadata": [{"is_value": True}, {"is_value": True}, {"is_value": False}],
                                "nodes": nodes}))
    return path


def write_runs(folder: Path, sizes: Sequence[float], times: Callable[[float], Mapping[str, float]]) -> Path:
    """A folder of runs ``run.p<size>.json``, each with the times ``times(size)``."""
    folder.mkdir(parents=True, exist_ok=True)
    for p in sizes:
        write_caliper_json(folder / f"run.p{p:g}.json", times(p))
    return folder


def solver_runs(folder: Path) -> Path:
    """Five runs at p = 2..32 where ``main->solve`` grows like p and the rest stays constant."""
    return write_runs(folder, (2, 4, 8, 16, 32),
                      lambda p: {"main": 1.0, "main->solve": 0.5 * p, "main->io": 2.0, "main->io->write": 1.5})
