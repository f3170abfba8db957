"""``loggp simulate`` without typer, NumPy or SymPy (:func:`run`): the same output as the typer
command on the examples and on a generated allreduce program from every input form, nothing of
NumPy, SymPy, typer or pydantic imported, and everything it does not take left to the typer
command (which prints the same results and names every error)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import perfcompose.commands.loggp.simulate as simulate_command
import perfcompose.loggp.kernels.backend as backend
from perfcompose.cli import app
from perfcompose.commands.loggp.simulate import run
from perfcompose.limits import limits, set_limits
from perfcompose.loggp.goal.schedule import program_to_goal, write_goal
from perfcompose.loggp.kernels.backend import extension
from perfcompose.loggp.steps.npzfile import write_program_npz
from perfcompose.loggp.steps.program import CommStep, CompStep, Program, program_to_json, read_program

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "loggp"
SETTINGS = (["--L", "10", "--o", "2", "--g", "5", "--G", "1"], ["--L=1000", "--o=500", "--g=600", "--G=1"])
pytestmark = pytest.mark.skipif(
    any(extension(n) is None for n in ("_cgoal", "_cgoal_text", "_cstep", "_cjson_tokens"))
    or not hasattr(extension("_cstep"), "loggopsim_steps"), reason="the compiled readers and kernels are not built")


@pytest.fixture(autouse=True)
def _keep_limits():
    previous = limits()
    yield
    set_limits(previous.memory, previous.steps)


def allreduce(P: int = 64, rounds: int = 6) -> Program:
    """Recursive doubling: rank r exchanges 1,024 bytes with r XOR 2^k, a computation after each round."""
    ranks = np.arange(P)
    steps: list[CommStep | CompStep] = []
    for k in range(rounds):
        steps.append(CommStep.from_arrays(P, ranks, ranks ^ (1 << k), np.full(P, 1024.0)))
        steps.append(CompStep.of(np.arange(P, dtype=float) % 7))
    return Program(P, tuple(steps), unit="us")


def forms(program: Program, where: Path) -> dict[str, Path]:
    """The program as JSON, .npz and GOAL text."""
    paths = {"json": where / "p.json", "npz": where / "p.npz", "goal": where / "p.goal"}
    paths["json"].write_text(json.dumps(program_to_json(program)))
    write_program_npz(program, paths["npz"])
    write_goal(program_to_goal(program), paths["goal"])
    return paths


def without_typer(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str | None:
    """What run prints, or None where it leaves the command line to the typer command."""
    capsys.readouterr()
    status = run(argv)
    out = capsys.readouterr().out
    assert status in (0, None)
    if status is None:
        assert not out
        return None
    return out


def with_typer(argv: list[str]) -> str:
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 0, result.output
    return result.stdout


def _argv(path: Path, flags: list[str], form: str) -> list[str]:
    return ["--max-memory", "4GiB", "loggp", "simulate", str(path), *flags,
            *(["--semantics", "loggopsim"] if form != "goal" else [])]


@pytest.mark.parametrize("flags", SETTINGS, ids=("small", "large"))
def test_an_allreduce_prints_as_the_typer_command_from_every_form(tmp_path, capsys, flags):
    for form, path in forms(allreduce(), tmp_path).items():
        argv = _argv(path, flags, form)
        out = without_typer(argv, capsys)
        assert out is not None and "makespan" in out, form
        assert out == with_typer(argv), form


@pytest.mark.parametrize("name", ["fanin.json", "worked.json"])
def test_the_examples_print_as_the_typer_command(tmp_path, capsys, name):
    paths = forms(read_program(EXAMPLES / name), tmp_path)
    for form, path in paths.items():
        argv = _argv(path, list(SETTINGS[0]), form)
        out = without_typer(argv, capsys)
        if form == "goal":
            assert out == with_typer(argv)
        else:  # so few operations that they are listed, which the typer command does
            assert out is None
    # the GOAL example has comments and labels of its own: the typer command's reader reads it
    assert without_typer(["loggp", "simulate", str(EXAMPLES / "pingpong.goal"), *SETTINGS[0]], capsys) is None


@pytest.mark.parametrize("extra", [["--json", "-"], ["--timeline", "t.png"], ["--help"], ["--L", "ten"],
                                   ["--semantics", "paper"], ["--worst-case"], ["--unknown"], ["--at", "x=1"]])
def test_what_it_does_not_take_goes_to_the_typer_command(tmp_path, capsys, extra):
    path = forms(allreduce(), tmp_path)["npz"]
    argv = ["loggp", "simulate", str(path), *SETTINGS[0], "--semantics=loggopsim", *extra]
    assert without_typer(argv, capsys) is None


def test_a_large_json_goes_to_the_typer_command_only_without_the_row_splitter(tmp_path, capsys, monkeypatch):
    """Without the compiled row splitter, beyond a few hundred thousand messages NumPy reads a JSON
    faster than Python checks its rows; with it run reads any size."""
    path = forms(allreduce(), tmp_path)["json"]
    argv = _argv(path, list(SETTINGS[0]), "json")
    assert without_typer(argv, capsys) is not None
    monkeypatch.setattr(simulate_command, "_JSON_BYTES", path.stat().st_size - 1)
    assert (without_typer(argv, capsys) is not None) == (extension("_cmessage_rows") is not None)
    monkeypatch.setattr(backend, "extension", lambda name: None if name == "_cmessage_rows" else extension(name))
    assert without_typer(argv, capsys) is None


def _subprocess(argv: list[str]) -> subprocess.CompletedProcess[str]:
    code = ("import sys\nfrom perfcompose.launch import main\n"
            f"sys.argv = ['perfcompose', *{argv!r}]\n"
            "try:\n    main()\nexcept SystemExit as exc:\n    code = exc.code\nelse:\n    code = 0\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'sympy', 'typer', 'pydantic', "
            "'numba', 'rich'}), code)\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


def test_it_imports_neither_numpy_nor_sympy_nor_typer_nor_rich(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a path wider than the table in its title is folded by Rich, as it should be
    for form, path in forms(allreduce(), Path()).items():
        out = _subprocess(_argv(path, list(SETTINGS[1]), form)).stdout.splitlines()
        assert "makespan" in out[-2] and out[-1] == "[] 0", (form, out[-3:])


def test_a_bad_input_is_the_typer_commands_located_error(tmp_path):
    program = allreduce(P=8, rounds=3)
    path = forms(program, tmp_path)["json"]
    doc = json.loads(path.read_text())
    doc["steps"][2]["messages"][5][1] = 8  # no processor 8
    path.write_text(json.dumps(doc))
    done = _subprocess(_argv(path, list(SETTINGS[0]), "json"))
    assert done.stdout.splitlines()[-1].endswith(" 2") and "error:" in done.stderr
    assert str(path) in done.stderr and "not a processor" in done.stderr
