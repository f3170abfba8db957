"""The command line starts without the heavy libraries: each is imported by the command that needs it."""
import subprocess
import sys

import pytest

# Typer itself imports pydantic to read the options of a subcommand, so pydantic is not listed.
HEAVY = ("sympy", "numpy", "scipy", "matplotlib", "numba", "dask", "pandas", "lark", "pycubexr")


def _imported_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint('MODULES', *sorted(m for m in sys.modules if '.' not in m))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return set(out.rsplit("MODULES", 1)[1].split())


def test_cli_module_imports_no_heavy_library() -> None:
    loaded = _imported_after("import perfcompose.cli")
    assert not loaded & set(HEAVY), f"perfcompose.cli pulls in {sorted(loaded & set(HEAVY))} at import"


def test_package_import_is_light_and_public_names_still_resolve() -> None:
    assert not _imported_after("import perfcompose") & set(HEAVY)
    loaded = _imported_after("from perfcompose import Model")
    assert "sympy" in loaded


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["fit", "--help"], ["loggp", "--help"],
                                  ["pamela", "--help"], ["skeleton", "--help"], ["paper", "--help"]])
def test_help_screens_load_no_heavy_library(argv: list[str]) -> None:
    code = ("import sys\nfrom perfcompose.cli import app\n"
            f"sys.argv = ['perfcompose', *{argv!r}]\n"
            "try:\n    app()\nexcept SystemExit:\n    pass\n")
    loaded = _imported_after(code)
    assert not loaded & set(HEAVY), f"perfcompose {' '.join(argv)} loads {sorted(loaded & set(HEAVY))}"
