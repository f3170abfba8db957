"""``perfcompose profile``: a Python program run under cProfile at several sizes, resumably, its
call paths written as a profile that analyze reads."""
from __future__ import annotations

import sys
from pathlib import Path

from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.data import load

SCRIPT = '''import sys

def work(n):
    s = 0
    for i in range(n * 100000):
        s += i
    return s

if __name__ == "__main__":
    work(int(sys.argv[1]))
'''


def run(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(app, ["profile", *args], env={"COLUMNS": "300"})
    assert result.exit_code == code, result.output
    return result.output


def test_a_script_is_profiled_at_each_size_and_a_second_run_resumes(tmp_path: Path) -> None:
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    out = tmp_path / "prof.json"
    args = ("--param", "n=1,2,8", "--reps", "1", "-o", str(out), "--", sys.executable, str(script), "{n}")
    printed = run(*args)
    assert "from 3 runs at 3 points" in printed and f"perfcompose analyze {out} --at n=80" in printed
    profile = load(out)
    work = next(s for s in profile.series if s.region.endswith("->work (script.py:3)"))
    seconds = {p.coordinate[0]: p.values[0] for p in work.points}
    assert sorted(seconds) == [1.0, 2.0, 8.0] and work.unit == "s"
    assert seconds[8.0] > 2 * seconds[1.0]  # 8 times the work: more than twice the time under any load
    assert "resumed: 3 points" in run(*args)
    assert load(out).series == profile.series


def test_a_command_that_is_not_python_is_refused(tmp_path: Path) -> None:
    printed = run("--param", "n=1,2", "-o", str(tmp_path / "p.json"), "--", "./solver", "{n}", code=2)
    assert "profile runs Python programs" in printed
