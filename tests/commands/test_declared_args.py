"""The command line read from the declared options: values as typer reads them, and None (typer
then reads the line) for anything it might read otherwise."""
from __future__ import annotations

from pathlib import Path

import pytest

from perfcompose.commands.declared_args import options, read_args
from perfcompose.loggp.options import LogGOPSimOptions, LogGPFiles, LogGPParameters, SimulateOutputs

KNOWN = options(LogGPParameters, LogGPFiles, LogGOPSimOptions, SimulateOutputs)


def test_values_flags_and_repeated_options():
    got = read_args(["p.goal", "--L", "10", "--o=2.5", "--G", "1e-3", "--params", "x.json", "--semantics",
                     "loggopsim", "--at", "x=1", "--at=y=2"], KNOWN, 1)
    assert got == ({"L": 10.0, "o": 2.5, "G": 0.001, "params": Path("x.json"), "semantics": "loggopsim",
                    "at": ["x=1", "y=2"]}, ["p.goal"])
    assert KNOWN["--params"].name == "params" and KNOWN["--semantics"].choices == ("paper", "loggopsim")


@pytest.mark.parametrize("argv", [
    ["p.goal", "--help"], ["p.goal", "--json", "-"], ["p.goal", "--L"], ["p.goal", "--L", "1_0"],
    ["p.goal", "--L", "inf"], ["p.goal", "--semantics", "other"], ["p.goal", "--L", "1", "--L", "2"],
    [], ["a", "b"], ["p.goal", "--params", "--L"],
])
def test_anything_else_is_left_to_typer(argv):
    assert read_args(argv, KNOWN, 1) is None
