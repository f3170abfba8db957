"""The CI script checks lint and types before it runs the README's test command, unchanged."""
from pathlib import Path

ROOT = Path(__file__).parents[2]


def test_ci_runs_ruff_and_the_type_baseline_before_the_readmes_test_command():
    steps = (ROOT / ".ci" / "run").read_text().splitlines()
    readme = (ROOT / "README.md").read_text()
    assert "python -m pytest -n 2 tests" in readme
    test = steps.index("python -m pytest -n 2 tests")
    lint = next(k for k, line in enumerate(steps) if "ruff check" in line)
    assert "python tools/check_types.py" in steps[lint] and lint < test
    # CI installs the README's test extra, and may add extras whose tests skip without them (mpi)
    install = next(line for line in steps if 'pip install ".[test' in line)
    assert 'pip install ".[test]"' in readme and steps.index(install) < lint
