"""Profiles for the analysis tests, written here: Extra-P text files and CUBE4 experiment folders.

A ``.cubex`` file is a tar of ``anchor.xml`` (metrics, regions, call tree, locations) and, per
metric, an index of call-tree nodes and their values by location (dense, node-major).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cubex_files import dense_metric, write_cubex


def write_extrap_text(path: Path, parameter: str, points: Sequence[float],
                      values: Mapping[str, Sequence[Sequence[float]]], metric: str = "time") -> Path:
    """An Extra-P text file: one parameter, and per call path the repetitions at each point."""
    lines = [f"PARAMETER {parameter}", "POINTS " + " ".join(f"( {p:g} )" for p in points), f"METRIC {metric}"]
    for callpath, reps in values.items():
        lines.append(f"REGION {callpath}")
        lines += ["DATA " + " ".join(repr(float(v)) for v in r) for r in reps]
    path.write_text("\n".join(lines) + "\n")
    return path


def _preorder(paths: Sequence[str]) -> list[str]:
    """Call paths with every caller before its callees (the order of cnode ids)."""
    return sorted(paths, key=lambda p: p.split("->"))


def _anchor(paths: Sequence[str]) -> str:
    names = list(dict.fromkeys(p.rpartition("->")[2] for p in paths))
    regions = "".join(f'<region id="{k}" mod="m.c" begin="1" end="2"><name>{n}</name></region>'
                      for k, n in enumerate(names))

    def cnode(path: str) -> str:
        kids = [q for q in paths if q.rpartition("->")[0] == path]
        inner = "".join(cnode(k) for k in kids)
        return f'<cnode id="{paths.index(path)}" calleeId="{names.index(path.rpartition("->")[2])}">{inner}</cnode>'

    roots = "".join(cnode(p) for p in paths if "->" not in p)
    return ('<?xml version="1.0" encoding="UTF-8"?><cube version="4.4"><metrics>'
            '<metric id="0" type="INCLUSIVE"><disp_name>Time</disp_name><uniq_name>time</uniq_name>'
            '<dtype>DOUBLE</dtype><uom>sec</uom></metric></metrics>'
            f'<program>{regions}{roots}</program>'
            '<system><systemtreenode Id="0"><name>machine</name><class>machine</class>'
            '<locationgroup Id="0"><name>rank 0</name><rank>0</rank><type>process</type>'
            '<location Id="0"><name>thread 0</name><rank>0</rank><type>thread</type></location>'
            '</locationgroup></systemtreenode></system></cube>')


def write_cube_run(path: Path, inclusive: Mapping[str, float]) -> Path:
    """A ``.cubex`` of one location whose ``time`` (an inclusive metric) is ``inclusive`` per call path."""
    paths = _preorder(list(inclusive))
    members = {"anchor.xml": _anchor(paths).encode()}
    members["0.index"], members["0.data"] = dense_metric(np.array([inclusive[p] for p in paths]), "<f8")
    return write_cubex(path, members)


def write_cube_experiment(root: Path, parameter: str, points: Sequence[float],
                          inclusive: Callable[[float], Mapping[str, float]]) -> Path:
    """A folder of runs ``app.<parameter><value>.r1``, one per point, for ``perfcompose.data.cube``."""
    for p in points:
        write_cube_run(root / f"app.{parameter}{p:g}.r1" / "profile.cubex", inclusive(p))
    return root


POINTS = (4.0, 8.0, 16.0, 32.0, 64.0, 128.0)


def _two_runs(v: float) -> tuple[float, float]:
    """Two repetitions 0.2 % apart around ``v``."""
    return (v * 0.999, v * 1.001)


@pytest.fixture(scope="session")
def cube_profile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """CUBE4 runs over p: main (own 0.2) calls init (0.5 + 0.01 p) and solve (own 1), which calls
    comm (0.01 p log2 p); ``time`` is stored inclusive."""
    def inclusive(p: float) -> dict[str, float]:
        comm = 0.01 * p * np.log2(p)
        init = 0.5 + 0.01 * p
        solve = 1.0 + comm
        return {"main": 0.2 + init + solve, "main->init": init, "main->solve": solve, "main->solve->comm": comm}

    return write_cube_experiment(tmp_path_factory.mktemp("cube") / "runs", "p", POINTS, inclusive)


@pytest.fixture(scope="session")
def exclusive_text(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Extra-P text of exclusive values: main (own 1) calls x (2 p) and y (p log2 p)."""
    own = {"main": lambda p: 1.0, "main->x": lambda p: 2.0 * p, "main->y": lambda p: p * np.log2(p)}
    values = {k: [_two_runs(f(p)) for p in POINTS] for k, f in own.items()}
    return write_extrap_text(tmp_path_factory.mktemp("text") / "exclusive.txt", "p", POINTS, values)


#: callees of main in :func:`inclusive_text`: their sum has more terms than one fit holds
MIXED = {"main->a": lambda p: 50.0 * np.sqrt(p), "main->b": lambda p: 0.01 * p ** 2,
         "main->c": lambda p: 100.0 * np.log2(p)}


@pytest.fixture(scope="session")
def inclusive_text(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Extra-P text of inclusive values: main (own 2) calls a (50 sqrt p), b (0.01 p^2) and c (100 log2 p)."""
    values = {"main": [_two_runs(2.0 + sum(f(p) for f in MIXED.values())) for p in POINTS]}
    values |= {k: [_two_runs(f(p)) for p in POINTS] for k, f in MIXED.items()}
    return write_extrap_text(tmp_path_factory.mktemp("text") / "inclusive.txt", "p", POINTS, values)


@pytest.fixture(scope="session")
def cube_analysis(cube_profile: Path) -> Any:
    from perfcompose.analyze import analyze

    return analyze(cube_profile, {"p": 1024})


@pytest.fixture(scope="session")
def mixed_analysis(inclusive_text: Path) -> Any:
    from perfcompose.analyze import analyze

    return analyze(inclusive_text, {"p": 1024})
