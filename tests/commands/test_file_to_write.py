"""An option that names a file to write refuses a path that names a folder ("", ".", "..", "/"),
before any work: ``profile -o ''`` had failed on pathlib's "empty name" with a traceback, and
``demo --plot ''`` had written '.png' and said "plot written to .". Found by the option fuzz."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from perfcompose.cli import app

LINES = {
    "profile -o": ["profile", "--param", "n=1,2", "-o", "{}", "--", "python", "s.py", "{n}"],
    "bench -o": ["bench", "nop", "--param", "x=1,2", "-o", "{}"],
    "--plot": ["paper", "fig4", "--plot", "{}"],
    "--json": ["paper", "calotoiu", "--json", "{}"],
    "--html": ["paper", "lobachev", "--html", "{}"],
    "demo --html": ["demo", "--html", "{}"],
}


@pytest.mark.parametrize("folder", ["", ".", "..", "/"])
@pytest.mark.parametrize("name", LINES)
def test_a_folder_is_refused_as_the_file_to_write(name: str, folder: str) -> None:
    result = CliRunner().invoke(app, [folder if a == "{}" else a for a in LINES[name]], env={"COLUMNS": "200"})
    assert result.exit_code == 2, result.output
    assert "names a folder, not a file" in result.output


def test_standard_output_is_still_a_json_target() -> None:
    result = CliRunner().invoke(app, ["paper", "calotoiu", "--json", "-"], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and result.stdout.lstrip().startswith("[")
