"""How many of Extra-P's own test inputs perfcompose reads, beside what Extra-P reads of them.

    EXTRAP_REPO=/path/to/extra-p/extrap python benchmarks/extrap_inputs.py

Unpacks ``tests/data`` of the clone (``git archive``), loads every file and every CUBE set
directory with ``perfcompose.data.load``, and tries each input perfcompose refuses with every
reader of Extra-P 4.2.5 (from ``.venv-extrap``, as ``compare_extrap.sh`` installs it): an input
counts as read by Extra-P when one of its readers returns an experiment.
"""
from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from perfcompose.data import load
from perfcompose.errors import PerfcomposeError

EXTRAP_PYTHON = Path(__file__).resolve().parent.parent / ".venv-extrap" / "bin" / "python"


def require_extrap(console: Any) -> None:
    """Stop with status 2 where Extra-P's environment (``.venv-extrap``) is missing."""
    if not EXTRAP_PYTHON.exists():
        console.print(f"error: {EXTRAP_PYTHON} is missing; run benchmarks/compare_extrap.sh once to make it")
        raise SystemExit(2)

# every reader of Extra-P 4.2.5 on one path; prints "read" when one of them returns an experiment
EXTRAP_TRY = """
import sys, warnings
warnings.filterwarnings("ignore")
from extrap.fileio.experiment_io import read_experiment
from extrap.fileio.file_reader import all_readers
path = sys.argv[1]
attempts = [lambda: read_experiment(path)] + [lambda r=r: r().read_experiment(path) for r in all_readers.values()]
for attempt in attempts:
    try:
        attempt()
        print("read")
        break
    except Exception:
        pass
"""


def inputs(root: Path) -> list[Path]:
    files = [p for p in sorted(root.rglob("*")) if p.is_file() and "cubeset" not in p.relative_to(root).parts]
    return files + [root / "cubeset", *sorted(p for p in (root / "cubeset").iterdir() if p.is_dir())]


def extrap_reads(path: Path) -> str:
    if not EXTRAP_PYTHON.exists():
        return "?"
    out = subprocess.run([str(EXTRAP_PYTHON), "-c", EXTRAP_TRY, str(path)], capture_output=True, text=True,
                         check=False, timeout=120)
    return "yes" if "read" in out.stdout.split() else "no"


@contextlib.contextmanager
def test_data() -> Iterator[Path]:
    """Extra-P's ``tests/data``, unpacked from the clone ``EXTRAP_REPO`` names into a temporary folder."""
    repo = os.environ.get("EXTRAP_REPO")
    if not repo:
        sys.exit("set EXTRAP_REPO to a clone of extra-p/extrap")
    archive = subprocess.run(["git", "-C", repo, "archive", "HEAD", "tests/data"], capture_output=True, check=True)
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(tmp, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
        yield Path(tmp) / "tests" / "data"


def main() -> None:
    with test_data() as root:
        paths = inputs(root)
        refused = {}
        for path in paths:
            try:
                load(path)
            except PerfcomposeError as exc:
                refused[path] = str(exc).splitlines()[0].replace(str(path), "").lstrip(": ")
        print(f"Extra-P's test inputs: {len(paths)}; perfcompose reads {len(paths) - len(refused)}")
        print("refused by perfcompose | read by Extra-P 4.2.5 | perfcompose's reason")
        for path, why in refused.items():
            print(f"{path.relative_to(root).as_posix()} | {extrap_reads(path)} | {why[:100]}")


if __name__ == "__main__":
    main()
