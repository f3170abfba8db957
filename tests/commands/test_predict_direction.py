"""``predict`` goes one way: the command parses its options, calls the library once
(``predict_design``) and hands the result to the renderers of report/, which never call back
into compose/ or the commands."""
from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from perfcompose.cli import app

SRC = Path(__file__).resolve().parents[2] / "src" / "perfcompose"
DESIGN = SRC.parents[1] / "examples" / "designs" / "pipeline.toml"
#: reports of the validation studies, which compose the programs they show themselves
COMPOSING_REPORTS = {"demo.py", "study.py"}
UPWARD = ("perfcompose.compose", "perfcompose.commands", "perfcompose.cli")


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, at its top or inside a function."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return out


def test_the_renderers_import_neither_compose_nor_the_commands():
    composing = set()
    for path in sorted((SRC / "report").glob("*.py")):
        upward = {m for m in imported(path) if m.startswith(UPWARD)}
        if upward:
            composing.add(path.name)
            assert path.name in COMPOSING_REPORTS, f"report/{path.name} imports {sorted(upward)}"
    assert composing == COMPOSING_REPORTS  # one that no longer composes leaves the list


def test_the_command_calls_one_library_function_once():
    tree = ast.parse((SRC / "commands" / "predict.py").read_text(encoding="utf-8"))
    library = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
               and node.module and node.module.startswith("perfcompose.compose") for alias in node.names}
    assert library == {"predict_design"}
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
             and n.func.id == "predict_design"]
    assert len(calls) == 1


def _module(frame: Any) -> str:
    return frame.f_globals.get("__name__", "")


def test_a_prediction_goes_from_the_command_to_the_library_to_the_renderers(tmp_path):
    """Every call the command makes into the library, and every call a renderer makes into
    compose/ or the commands, while ``predict`` writes its tables, JSON, plot and page."""
    from_command: list[str] = []
    climbs: list[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event != "call" or frame.f_back is None:
            return
        callee, caller = _module(frame), _module(frame.f_back)
        if not callee.startswith("perfcompose.") or frame.f_code.co_name == "<module>":
            return
        if caller == "perfcompose.commands.predict" and not callee.startswith(("perfcompose.commands",
                                                                              "perfcompose.report")):
            from_command.append(f"{callee}.{frame.f_code.co_name}")
        if caller.startswith("perfcompose.report") and callee.startswith(UPWARD):
            climbs.append(f"{caller} -> {callee}.{frame.f_code.co_name}")

    # the command's module loaded first: its declarations (run once where the command is loaded
    # lazily) are not calls the command makes
    importlib.import_module("perfcompose.commands.predict")
    args = ["predict", str(DESIGN), "--json", str(tmp_path / "p.json"), "--html", str(tmp_path / "p.html"),
            "--plot", str(tmp_path / "p.png")]
    sys.setprofile(profile)
    try:
        r = CliRunner().invoke(app, args)
    finally:
        sys.setprofile(None)
    assert r.exit_code == 0, r.output
    assert from_command == ["perfcompose.compose.prediction.predict_design"]
    assert climbs == []
    assert all((tmp_path / f).stat().st_size > 1000 for f in ("p.json", "p.html", "p.png"))
