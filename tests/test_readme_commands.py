"""Every shell command in the README's ```bash blocks runs and exits as the README says.

The commands are found in the README when the test is collected, so a command added there is
tried without a change here. Each runs in a scratch folder holding a copy of ``examples/`` (and
the source tree, which ``pamela generate`` reads), after the variable assignments and ``cd`` lines
that precede it in its block. ``bash`` expands a plain ``perfcompose ...`` line (no pipe,
redirection, ``&&`` or command substitution) into its words, and the console script's entry point
runs them in this process (tests/run_cli.py), which saves a python start and its imports per
command; every other line runs through ``bash -e``. The tables below adjust what runs, each entry
with its reason:

- INSTALL: the parts of a line that set up an environment (``python3 -m venv``, ``. .venv/bin/
  activate``, ``pip install``) are left out; the rest of the line runs in this environment.
- SKIPPED: commands this test cannot run here, each with the reason pytest shows.
- SMALLER: commands that measure for long run with smaller sizes (the option text replaced).
- SMALL_QUICK: commands that measure for long and have no option for smaller sizes (``demo``,
  ``paper table1/2/4/6/7 --quick``) run with smaller quick sizes.
- IN_A_SHELL: plain commands that still run through ``bash -e``: the installed console script,
  started as the user starts it.
- INPUTS: files the README's commands name as the user's own, made in the scratch folder from
  the project's data for the commands that name them.

Every entry of SKIPPED and SMALLER must match a command of the README, so none outlives its command.

Each command's output (standard output and error together), and the text of each HTML page it
writes (``--html PAGE``), is then read as a user reads it (tests/units_shown.py): every time
carries its unit, no number is nan or inf, no time is negative. UNITS_OPEN lists the commands
whose output is known to break this, each with what is wrong; the test expects the problem there,
so an entry fails once its command is fixed.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from run_cli import perfcompose
from units_shown import page_text, unit_problems

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

#: parts of a command line (between ``&&``) that set up an environment instead of using it
INSTALL = re.compile(r"^\s*(python3? -m venv \S+|\. \S*bin/activate|source \S*bin/activate|pip install .*)\s*$")

#: (pattern, reason): commands not run here
SKIPPED: tuple[tuple[str, str], ...] = (
    (r"python -m pytest", "the test suite itself, which this test is part of"),
    (r"^ruff check\b|tools/check_types\.py", ".ci/run runs the linter and the type check itself, before the tests"),
)

#: (pattern, replacement, reason): commands that measure for long, run with smaller sizes
SMALLER: tuple[tuple[str, str, str], ...] = (
    (r"bench qsort --param x=1024:16384 --reps 3", "bench qsort --param x=1024:4096 --reps 1",
     "qsort at 5 sizes x 3 repetitions: 3 sizes x 1"),
    (r"--x 1024:16384 --rounds 2$", "--x 1024:4096 --rounds 1", "a program at 5 sizes x 2 rounds: 3 x 1"),
    (r"--x 1024:4096 --rounds 2$", "--x 1024:4096 --rounds 1", "library stages at 3 sizes x 2 rounds: 3 x 1"),
)

#: sizes of the quick measurements of the reference tasks and the paper's tables, for the commands
#: that have no option for smaller ones (``demo``, ``paper table1/2/4/6/7 --quick``): each runs
#: with these values in place of 33 sizes x 33 repetitions (Table 1) and 9 sizes x 5 rounds (the
#: validation tables)
SMALL_QUICK = {"QUICK_ROUNDS_T1": 2, "QUICK_REPS_T1": 1, "QUICK_X": (1024.0, 2048.0, 4096.0), "QUICK_ROUNDS": 1}
SMALL_TASK_GRID = (1024.0, 4096.0, 16384.0, 65536.0)
QUICK = re.compile(r"^perfcompose (demo|paper table[12467] --quick)\b")

#: a command line the console script's entry point can run in this process, once bash has expanded it
PLAIN = re.compile(r"^perfcompose\s(?!.*([|;&<>`]|\$\())")

#: (pattern, reason): plain commands that run through bash all the same
IN_A_SHELL: tuple[tuple[str, str], ...] = (
    (r"^perfcompose show examples/tasks\.csv$", "the installed console script, on PATH, started by a shell"),
)


#: (pattern, what is wrong): commands whose output still shows times without their unit
UNITS_OPEN: tuple[tuple[str, str], ...] = ()

#: files the README names as the user's own, made for the commands that name them
INPUTS: dict[str, Callable[[Path], None]] = {}

#: exit status the README gives a command, where it is not 0
EXIT_STATUS: dict[str, int] = {}


@dataclass(frozen=True)
class Command:
    """One command of a ```bash block: its text, the assignments and ``cd`` lines before it in
    the block, and where it is (section heading, number in the README)."""

    section: str
    number: int
    text: str
    setup: tuple[str, ...]

    @property
    def id(self) -> str:
        words = re.sub(r"[^a-z0-9]+", "-", self.section.lower())[:24].strip("-")
        return f"{self.number:02d}-{words}-{re.sub(r'[^a-z0-9]+', '-', self.text.lower())[:48].strip('-')}"


def _without_comment(line: str) -> str:
    """The line without its trailing ``# comment`` (a ``#`` after a blank, outside quotes)."""
    quote = ""
    for k, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (k == 0 or line[k - 1].isspace()):
            return line[:k].rstrip()
    return line.rstrip()


def _logical_lines(block: str) -> list[str]:
    """The block's lines with continuations joined and comments dropped; blank lines dropped."""
    joined = re.sub(r"\\\n\s*", " ", block)
    return [text for line in joined.splitlines() if (text := _without_comment(line).strip())]


def _is_setup(line: str) -> bool:
    """A line that sets a variable or the folder for the lines after it."""
    return bool(re.match(r"^[A-Za-z_][A-Za-z0-9_]*=(\"[^\"]*\"|'[^']*'|\S*)$", line) or
                re.match(r"^cd\s", line))


def _without_install(line: str) -> str:
    return " && ".join(part.strip() for part in line.split("&&") if not INSTALL.match(part))


def readme_commands(text: str) -> list[Command]:
    """Every command of the README's ```bash blocks, in order."""
    commands: list[Command] = []
    for match in re.finditer(r"```bash\n(.*?)```", text, flags=re.S):
        before = text[:match.start()]
        headings = re.findall(r"^#+\s+(.*)$", before, flags=re.M)
        section = headings[-1] if headings else "top"
        setup: list[str] = []
        for line in _logical_lines(match.group(1)):
            if _is_setup(line):
                setup.append(line)
                continue
            line = _without_install(line)
            if line:
                commands.append(Command(section, len(commands) + 1, line, tuple(setup)))
    return commands


COMMANDS = readme_commands(README.read_text())


def _run(script: str, cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "COLUMNS": "120", "MPLBACKEND": "Agg"}
    return subprocess.run(["bash", "-e", "-c", script], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_the_readme_has_commands_to_run():
    assert any("perfcompose demo" in c.text for c in COMMANDS)
    assert any(c.setup for c in COMMANDS), "the variables of a block reach its commands"
    assert not any(INSTALL.match(part) for c in COMMANDS for part in c.text.split("&&"))


def test_every_skip_and_smaller_size_matches_a_readme_command():
    texts = [c.text for c in COMMANDS]
    for pattern in [p for p, _ in (*SKIPPED, *UNITS_OPEN, *IN_A_SHELL)] + [p for p, _, _ in SMALLER]:
        assert any(re.search(pattern, text) for text in texts), f"no README command matches {pattern!r}"


def _small_quick_sizes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The quick measurements of the reference tasks and the paper's tables at SMALL_QUICK's sizes."""
    import perfcompose.validate.paper as paper
    from perfcompose.bench import TASKS

    for name, value in SMALL_QUICK.items():
        monkeypatch.setattr(paper, name, value)
    for name, task in TASKS.items():
        if "x" in task.quick_grid:
            monkeypatch.setitem(TASKS, name, replace(task, quick_grid={**task.quick_grid, "x": SMALL_TASK_GRID}))


def _expanded(script: str, cwd: Path) -> tuple[Path, list[str]]:
    """The folder a plain command runs in and its words, as bash expands them after its block's
    assignments and ``cd`` lines (``script`` ends with the command)."""
    *setup, line = script.split("\n")
    probe = "\n".join((*setup, f'printf "%s\\0" "$PWD" {line}'))
    out = subprocess.run(["bash", "-e", "-c", probe], cwd=cwd, capture_output=True, text=True, check=True).stdout
    here, *words = out.split("\0")[:-1]
    return Path(here), words


def _in_process(script: str, work: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    """Run a plain ``perfcompose`` command line in this process, as bash would have run it."""
    here, words = _expanded(script, work)
    assert words[0] == "perfcompose", words
    monkeypatch.chdir(here)
    ran = perfcompose(*words[1:], columns=120)
    return ran.returncode, ran.stdout + ran.stderr


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.id)
def test_readme_command(command: Command, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    for pattern, reason in SKIPPED:
        if re.search(pattern, command.text):
            pytest.skip(f"{command.text!r}: {reason}")
    text = command.text
    for pattern, replacement, _ in SMALLER:
        text = re.sub(pattern, replacement, text)
    work = tmp_path / "work"
    shutil.copytree(ROOT / "examples", work / "examples", ignore=shutil.ignore_patterns(".perfcompose"))
    (work / "src").symlink_to(ROOT / "src")
    for name, make in INPUTS.items():
        if name in " ".join((*command.setup, text)):
            make(work / name)
    expected = next((code for pattern, code in EXIT_STATUS.items() if re.search(pattern, command.text)), 0)
    script = "\n".join((*command.setup, text))
    if QUICK.match(text):
        _small_quick_sizes(monkeypatch)
    if PLAIN.match(text) and not any(re.search(pattern, text) for pattern, _ in IN_A_SHELL):
        status, output = _in_process(script, work, monkeypatch)
        assert status == expected, f"$ {script}\n{output[-3000:]}"
    else:
        result = _run(script, work)
        assert result.returncode == expected, f"$ {script}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        assert "Traceback" not in result.stderr, result.stderr
        output = result.stdout + result.stderr
    _check_units(command.text, output)
    for page in re.findall(r"--html\s+(\S+)", text):
        _check_units(command.text, page_text((work / page).read_text(encoding="utf-8")), f"the page {page}")


def _check_units(text: str, output: str, where: str = "the output") -> None:
    """Every number of the output read right, or the problem UNITS_OPEN names for the command."""
    problems = unit_problems(output)
    known = next((why for pattern, why in UNITS_OPEN if re.search(pattern, text)), None)
    if known is None:
        assert not problems, f"$ {text}: {where}\n" + "\n".join(problems[:20])
    else:
        assert problems, f"$ {text}: no longer {known}; remove its entry from UNITS_OPEN"
