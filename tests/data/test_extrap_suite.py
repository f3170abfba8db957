"""Every input of Extra-P's own test suite loads, or is refused with a located perfcompose error.

Uses a clone of the extra-p/extrap repository (bare or checked out) named by ``EXTRAP_REPO``;
skipped where there is none. Its ``tests/data`` is unpacked once, then each file (and each CUBE
directory) is loaded; the test lists what fails and why.
"""
from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from perfcompose.data import load
from perfcompose.errors import PerfcomposeError

REPO = Path(os.environ.get("EXTRAP_REPO", "")) if os.environ.get("EXTRAP_REPO") else None

# what Extra-P itself rejects on purpose (its reader refuses these too), and what is no experiment
EXPECTED_FAILURES = {
    "input/experiments_MP/experiment_MP_neg1.txt": "a DATA line short",
    "input/experiments_MP/experiment_MP_neg2.txt": "a DATA line too many",
    "input/experiments_SP/experiment3_neg.txt": "points not grouped",
    "input/experiments_SP/experiment_neg.txt": "POINTS before PARAMETER",
    "cubeset": "no profiles one folder down",
    "cubeset/negative_example": "folders name other parameters",
    "cubeset/negative_example2": "folders name parameters in another order",
    "input/synthetic-data.py": "a Python script",
    "mpi_data.csv": "statistics table without a value column",
}


@pytest.fixture(scope="module")
def extrap_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if REPO is None or not REPO.exists() or shutil.which("git") is None:
        pytest.skip(f"no clone of extra-p/extrap at {REPO} (set EXTRAP_REPO)")
    archive = subprocess.run(["git", "-C", str(REPO), "archive", "HEAD", "tests/data"], capture_output=True,
                             check=False)
    if archive.returncode != 0:
        pytest.skip(f"cannot read tests/data from {REPO}: {archive.stderr.decode().strip()}")
    out = tmp_path_factory.mktemp("extrap")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(out, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    return out / "tests" / "data"


def _inputs(root: Path) -> list[Path]:
    """Every file outside the CUBE sets, and every CUBE set directory (with the sets' parent)."""
    files = [p for p in sorted(root.rglob("*")) if p.is_file() and "cubeset" not in p.relative_to(root).parts]
    cubes = [root / "cubeset", *sorted(p for p in (root / "cubeset").iterdir() if p.is_dir())]
    return files + cubes


def _kind(path: Path, root: Path) -> str:
    rel = path.relative_to(root)
    if rel.parts[0] in ("cubeset", "talpas"):
        return rel.parts[0]
    return path.suffix.lower() or "(none)"


def test_every_extrap_input_loads_or_is_refused_with_a_located_error(extrap_data):
    loaded: dict[str, int] = {}
    failed: dict[str, str] = {}
    for path in _inputs(extrap_data):
        name = path.relative_to(extrap_data).as_posix()
        try:
            load(path)
        except PerfcomposeError as exc:
            assert str(exc).startswith(str(path)), f"{name}: the error does not name the file: {exc}"
            failed[name] = str(exc).splitlines()[0]
            continue
        kind = _kind(path, extrap_data)
        loaded[kind] = loaded.get(kind, 0) + 1
    unexpected = {n: why for n, why in failed.items() if n not in EXPECTED_FAILURES}
    assert not unexpected, "fail to load:\n" + "\n".join(f"  {n}: {why}" for n, why in unexpected.items())
    now_load = set(EXPECTED_FAILURES) - set(failed)
    assert not now_load, f"load now, remove them from EXPECTED_FAILURES: {sorted(now_load)}"
    assert loaded[".jsonl"] == 21 and loaded["talpas"] == 10 and loaded["cubeset"] == 6, loaded


def test_strong_scaling_inputs_get_negative_lead_terms(extrap_data):
    from fractions import Fraction

    from perfcompose.fit import PMNFFitter

    experiment = load(extrap_data / "text/strong_scaling/one_parameter_6.txt")
    results = {r.region: r for r in PMNFFitter().fit(experiment).results_}
    for region in ("met2", "met4"):   # 256e6 / p^2 and 256e12 / p^2
        _, terms = results[region].model.terms()
        assert [t.exponent("p") for t in terms] == [(Fraction(-2), Fraction(0))], region
        assert results[region].stats["adj_r2"] > 0.999 and not results[region].warnings
    assert not results["met1"].model.terms()[1] and not results["met1"].warnings   # flat within noise


def test_every_extrap_input_read_fits_or_says_why(extrap_data):
    from perfcompose.errors import FitError
    from perfcompose.fit import PMNFFitter

    for path in _inputs(extrap_data):
        name = path.relative_to(extrap_data).as_posix()
        if name in EXPECTED_FAILURES:
            continue
        try:
            PMNFFitter().fit(load(path))
        except FitError as exc:
            assert str(exc), name
