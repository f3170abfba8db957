"""Inputs of Extra-P's own test suite, one or two of every kind Extra-P 4.2.5 reads (text, JSON,
JSON Lines, Talpas, saved experiments, an Extra-P 3 file, a CUBE set; see extrap/README.md):
``show`` and ``fit`` of each exit 0, and what is read matches what the file holds."""
from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.data import load

DATA = Path(__file__).resolve().parent / "extrap"
INPUTS = {
    "one_parameter_1.txt": ("extrap-text", ("x",)),
    "two_parameter_1.txt": ("extrap-text", ("x", "y")),
    "input1.json": ("extrap-json", ("x",)),
    "input_1.JSON": ("extrap-json legacy", ("x",)),
    "matrix_3p.jsonl": ("jsonl", ("x", "y", "z")),
    "talpas_1.txt": ("talpas", ("x",)),
    "exp_only_mean_median.extra-p": ("extrap-saved", ("x", "y")),
    "two_parameter3.txt.extra-p": ("extrap-saved", ("x", "y")),
    "experiment_3": ("extrap3", ("p",)),
    "cube_simple_threaded": ("cube", ("f",)),
}


def test_every_copied_input_is_listed():
    assert sorted(p.name for p in DATA.iterdir() if p.name not in ("README.md", "LICENSE")) == sorted(INPUTS)


@pytest.mark.parametrize("name", INPUTS)
def test_show_and_fit_read_the_input(name):
    if name.startswith("cube"):
        pytest.importorskip("pycubexr")
    path = DATA / name
    e = load(path)
    assert e.parameters == INPUTS[name][1] and e.series
    for command in ("show", "fit"):
        result = CliRunner().invoke(app, [command, str(path)])
        assert result.exit_code == 0, f"{command} {name}: {result.output}"


def test_saved_statistics_are_modelled_as_extrap_does():
    """exp_only_mean_median.extra-p saves each point's mean and median, no repetitions: the mean is
    the default value, each aggregate its own statistic."""
    series = load(DATA / "exp_only_mean_median.extra-p").get("time", "merge")
    first = series.points[0]
    assert first.coordinate == (20.0, 1.0)
    assert series.aggregated("mean")[0] == 0.998632604831951 and series.aggregated("median")[0] == 1.0003031166379763
    assert first.values == (0.998632604831951,)
