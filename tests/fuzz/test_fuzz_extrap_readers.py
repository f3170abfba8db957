"""Extra-P's binary inputs and its line formats, fuzzed like the other readers: valid files
(the Extra-P 3 experiment and saved experiment the data tests write, an archive perfcompose
wrote with its repetitions in value files, JSON Lines and Talpas lines) and a folder of CUBE
runs mutated byte by byte must read or fail with a located error, never crash or hang."""
from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import pytest
from hypothesis import given, seed, settings
from test_fuzz_readers import EXAMPLES_PER_READER, SEED, mutated, outcome_is_clean

from perfcompose.data import extrap_saved, load


def _writers():
    spec = importlib.util.spec_from_file_location("extrap_binary_files",
                                                  Path(__file__).parents[1] / "data" / "test_extrap_binary.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _seeds() -> dict[str, bytes]:
    w = _writers()
    jsonl = "".join(f'{{"params": {{"x": {x}}}, "callpath": "main", "metric": "time", "value": {v}}}\n'
                    for x in (4, 8, 16) for v in (1.0 * x, 1.1 * x))
    talpas = "".join(f'{{"parameters": {{"x": {x}}}; "metric": "time"; "callpath": "main"; "value": {2.0 * x}}}\n'
                     for x in (4, 8, 16))
    return {"experiment_3": w.extrap3_experiment(), "saved.extra-p": w.saved_experiment(w._grid(False)),
            "kept_values.extra-p": extrap_saved.dumps(w._measured()),
            "input.jsonl": jsonl.encode(), "talpas.txt": talpas.encode()}


SEEDS = _seeds()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz_extrap")


@pytest.mark.parametrize("name", SEEDS)
def test_extrap_readers(folder, name):
    assert load(_write(folder, name, SEEDS[name])).series    # the seed itself reads

    @seed(SEED)
    @settings(settings.get_profile("fuzz"), max_examples=max(1, EXAMPLES_PER_READER // 3))
    @given(mutated(SEEDS[name]))
    def read(data: bytes) -> None:
        exp = outcome_is_clean(lambda: load(_write(folder, name, data)))
        if exp is not None:
            for series in exp.series:
                for point in series.points:
                    assert all(math.isfinite(v) for v in point.values + point.coordinate), point

    read()


def _write(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


def _cube_module():
    spec = importlib.util.spec_from_file_location("cube_files", Path(__file__).parents[1] / "data" / "test_cube.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cube_profiles(tmp_path):
    """A folder of CUBE runs (x = 1, 2, 4) whose x=4 profile is mutated: the folder reads or fails
    with a located error."""
    sys.path.insert(0, str(Path(__file__).parents[1]))  # test_cube imports tests/cubex_files.py
    runs = tmp_path / "runs"
    for x in (1, 2, 4):
        _cube_module()._run(runs, f"app.x{x}.r1", x)
    mutated_run = runs / "app.x4.r1" / "profile.cubex"
    assert load(runs).series  # the seed itself reads

    @seed(SEED)
    @settings(settings.get_profile("fuzz"), max_examples=max(1, EXAMPLES_PER_READER // 3))
    @given(mutated(mutated_run.read_bytes()))
    def read(data: bytes) -> None:
        mutated_run.write_bytes(data)
        exp = outcome_is_clean(lambda: load(runs))
        if exp is not None:
            for series in exp.series:
                for point in series.points:
                    assert all(math.isfinite(v) for v in point.values + point.coordinate), point

    read()
