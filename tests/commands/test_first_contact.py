"""What a first-time user meets: a design file expected where measurements were given, a term
without components, a point missing a parameter, and output sent to a pipe (no number broken
across lines)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from perfcompose.cli import app

ROOT = Path(__file__).resolve().parents[2]
QSORT = ["-c", "qsort=1034.17*x*log2(x)"]


def run(*args: str):
    return CliRunner(env={"COLUMNS": "200"}).invoke(app, [str(a) for a in args])


def test_predict_of_a_csv_says_it_wants_a_design_file():
    r = run("predict", ROOT / "examples" / "tasks.csv")
    assert r.exit_code == 2, r.output
    assert "not a design file" in r.output and "examples/designs" in r.output
    assert "tasks.csv, line 1" in r.output and "Traceback" not in r.output


def test_a_term_without_any_component_points_to_c():
    r = run("compose", "pipe(a,b)")
    assert r.exit_code == 2
    assert "-c NAME=EXPR" in r.output and "known components: none" not in r.output
    r = run("compose", "pipe(a,b)", "-c", "a=2*x")   # one known: named, no pointer needed
    assert r.exit_code == 2 and "known components: a" in r.output


def test_a_missing_parameter_hint_names_each_parameter_once():
    r = run("compose", "qsort", *QSORT, "--at", "n=4")
    assert r.exit_code == 2
    assert "give a value for x too" in r.output and "--at n=4,x=65536" in r.output
    r = run("compose", "tpool_n(qsort)", *QSORT, "--at", "x=65536")
    assert r.exit_code == 2 and "--at x=65536,n=4" in r.output


def test_output_to_a_pipe_is_laid_out_wide():
    from perfcompose.commands.widths import WIDE, piped_width

    with open(os.devnull, "w") as devnull:
        assert piped_width(devnull, {}) == WIDE
        assert piped_width(devnull, {"COLUMNS": "90"}) is None  # Rich takes COLUMNS itself
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "FORCE_COLOR", "TTY_COMPATIBLE")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-m", "perfcompose", "fit", str(ROOT / "examples" / "tasks.csv")],
                         capture_output=True, text=True, env=env, timeout=120, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if line.startswith("│ qsort")]
    assert len(rows) == 1 and "* x^(1) * log2(x)^(1)" in rows[0]  # the model on one line, not wrapped at 80
    assert not any(line.startswith("│        │") for line in out.stdout.splitlines())


def test_validate_says_where_it_keeps_its_measurements(tmp_path, monkeypatch):
    from perfcompose.commands import validation as command

    seen = {}

    def study(*args, checkpoints, **kw):
        seen["folder"] = checkpoints
        (checkpoints / "partial").mkdir(parents=True)
        return "measured"

    monkeypatch.setattr(command, "study", study)
    monkeypatch.chdir(tmp_path)
    printed = []
    monkeypatch.setattr(command.err_console, "print", lambda *a, **kw: printed.append(" ".join(map(str, a))))
    assert command.run_composition_study(["tpool_2(nop)"], (1024.0,), 1, 2, "threads", 2, False) == "measured"
    folder = (tmp_path / seen["folder"]).resolve()
    assert folder.is_dir() and any(str(folder) in line and "--restart" in line for line in printed), printed
