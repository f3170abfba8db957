"""Property-based fuzzing of every reader: valid example files mutated byte by byte.

Each reader either returns or raises a located :class:`~perfcompose.errors.PerfcomposeError` (or a
failure :func:`~perfcompose.errors.from_exception` turns into one, as the CLI does); never another
exception, and never a hang (each input gets a few seconds). The seed and the number of inputs
come from ``PERFCOMPOSE_FUZZ_SEED`` and ``PERFCOMPOSE_FUZZ_EXAMPLES`` (inputs per reader; the
suite's default is a small sample) so that a campaign with a fresh seed runs the same
properties::

    PERFCOMPOSE_FUZZ_EXAMPLES=800 PERFCOMPOSE_FUZZ_SEED=$(date +%s) python -m pytest tests/fuzz

It ends with the inputs tried per test and class (accepted, refused, and the failures:
traceback, hang, garbage, wrong exit, crash).
"""
from __future__ import annotations

import math
import os
import shutil
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from cli_outcome import count
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from perfcompose.errors import from_exception

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SEED = int(os.environ.get("PERFCOMPOSE_FUZZ_SEED", "20260"))
EXAMPLES_PER_READER = int(os.environ.get("PERFCOMPOSE_FUZZ_EXAMPLES", "60"))
SECONDS_PER_INPUT = 10

TOKENS = [b"", b"0", b"-1", b"1e999", b"1e-320", b"1e308", b"nan", b"NaN", b"inf", b"-inf", b"Infinity", b"[", b"]",
          b"{", b"}", b"(", b")", b",", b":", b'"', b"'", b"\n", b"#", b"=", b"x", b"P", b"\xff", b"\x00", b"9" * 40,
          b"null", b"true", b"0.5", b"-0", b";", b"|", b" ", b"\t", b"1000000000", b"-1e9", b"1e9", b"__class__",
          b"log2(-x)", b"x**1e9", b"10**10**10", b"seq(", b"pipe(", b"tpool_", b"par (i = 1, 1000000000)", b"\\",
          b"\r\n", b"\xef\xbb\xbf"]

settings.register_profile("fuzz", max_examples=EXAMPLES_PER_READER, deadline=None, derandomize=False,
                          suppress_health_check=list(HealthCheck), database=None)


@st.composite
def mutated(draw: Any, original: bytes) -> bytes:
    """``original`` with a few insertions, deletions and replacements at random places."""
    data = bytearray(original)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        cut = draw(st.integers(0, 12))
        piece = draw(st.one_of(st.sampled_from(TOKENS), st.binary(max_size=6)))
        repeat = draw(st.sampled_from([1, 1, 1, 2, 50]))
        data[at:at + cut] = piece * repeat
    return bytes(data)


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    """Stop the input after ``seconds`` of CPU time (a loop that never ends), or ten times as long
    on the clock (a wait that never ends): a machine busy with other work slows neither into a hang."""
    def expire(signum: int, frame: Any) -> None:
        raise TimeoutError(f"an input ran longer than {seconds} s of CPU time or {10 * seconds} s")

    old = {sig: signal.signal(sig, expire) for sig in (signal.SIGPROF, signal.SIGALRM)}
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.alarm(10 * seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.alarm(0)
        for sig, handler in old.items():
            signal.signal(sig, handler)


def outcome_is_clean(read: Callable[[], Any]) -> Any:
    """Run ``read``; a user-facing error is fine, anything else fails the property."""
    with time_limit(SECONDS_PER_INPUT):
        try:
            result = read()
        except TimeoutError:
            count("hang")
            raise
        except Exception as exc:  # noqa: BLE001 - the property is about which exceptions escape
            if from_exception(exc) is None:
                count("traceback")
                raise
            count("refused")
            return None
    count("accepted")
    return result


def _seed_file(name: str) -> bytes:
    return (EXAMPLES / name).read_bytes()


def _write(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@pytest.fixture(scope="module")
def examples_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(shutil.copytree(EXAMPLES, tmp_path_factory.mktemp("fuzz") / "examples",
                                ignore=shutil.ignore_patterns(".perfcompose")))


EXPERIMENTS = ["qsort.json", "tasks.csv", "tasks.txt", "kernel.extrap.json", "callpaths.txt"]


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_experiment_readers(folder, name):
    from perfcompose.data import load

    @seed(SEED)
    @settings(settings.get_profile("fuzz"), max_examples=max(1, EXAMPLES_PER_READER // 2))
    @given(mutated(_seed_file(name)))
    def read(data: bytes) -> None:
        exp = outcome_is_clean(lambda: load(_write(folder, name, data)))
        if exp is not None:
            for series in exp.series:
                for point in series.points:
                    assert all(math.isfinite(v) for v in point.values), point
                    assert all(math.isfinite(c) for c in point.coordinate), point

    read()


@seed(SEED)
@settings(settings.get_profile("fuzz"))
@given(st.one_of(mutated(b"5.2 + 0.51*x^(3/2)*log2(x) + max(x, n)/3"), st.text(max_size=40)))
def test_model_text(data):
    from perfcompose.model import Model

    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    model = outcome_is_clean(lambda: Model.parse(text))
    if model is not None:
        from perfcompose.expression_reader import nowhere_finite

        assert not nowhere_finite(model.expr)


def _model_record() -> bytes:
    from perfcompose.model import Model

    return Model.parse("5.2 + 0.51*x^(3/2)*log2(x) + max(x, n)/3 + exp(-x)").to_json_text().encode()


@seed(SEED)
@settings(settings.get_profile("fuzz"))
@given(mutated(_model_record()))
def test_model_records(data):
    from perfcompose.model import Model

    outcome_is_clean(lambda: Model.from_json(data.decode("utf-8", "replace")))


@seed(SEED)
@settings(settings.get_profile("fuzz"))
@given(mutated(b"pipe(tpool_4(qsort), seq(inc, nop), tpool_n(inc))"))
def test_terms(data):
    from perfcompose.compose.parser import parse_term

    outcome_is_clean(lambda: parse_term(data.decode("utf-8", "replace"), components=["qsort", "inc", "nop"]))


@pytest.mark.parametrize("name", ["pipeline.toml", "mixed.toml"])
def test_design_files(examples_copy, name):
    from perfcompose.compose.design import load_design

    @seed(SEED)
    @settings(settings.get_profile("fuzz"), max_examples=max(1, EXAMPLES_PER_READER // (2 if name == "pipeline.toml"
                                                                                          else 6)))
    @given(mutated(_seed_file(f"designs/{name}")))
    def read(data: bytes) -> None:
        # a design names its sources relative to itself: the mutated copy is read in a copy of examples/
        outcome_is_clean(lambda: load_design(_write(examples_copy / "designs", "fuzzed.toml", data)))

    read()


def _pamela_model(path: Path) -> Any:
    from perfcompose.pamela.language.parser import load

    return load(path)


def _loggp_program(path: Path) -> Any:
    from perfcompose.loggp.steps.program import read_program

    return read_program(path)


def _loggp_template(path: Path) -> Any:
    from perfcompose.loggp.steps.template import read_template

    return read_template(path).instantiate({"x": 4096.0})


@pytest.mark.parametrize("name, written, reader", [
    ("pamela/owner_computes.pam", "model.pam", _pamela_model),
    ("pamela/mrm.pam", "model.pam", _pamela_model),
    ("loggp/fanin.json", "program.json", _loggp_program),
    ("loggp/exchange.json", "program.json", _loggp_template),
])
def test_pamela_models_and_loggp_programs(folder, name, written, reader):
    assert reader(_write(folder, written, _seed_file(name))) is not None  # the seed itself reads
    @seed(SEED)
    @settings(settings.get_profile("fuzz"), max_examples=max(1, EXAMPLES_PER_READER // 2))
    @given(mutated(_seed_file(name)))
    def read(data: bytes) -> None:
        outcome_is_clean(lambda: reader(_write(folder, written, data)))

    read()


@seed(SEED)
@settings(settings.get_profile("fuzz"))
@given(mutated(_seed_file("loggp/params_local.json")))
def test_loggp_parameter_files(folder, data):
    from perfcompose.loggp.params import calibration_members, read_params

    path = _write(folder, "params.json", data)
    params = outcome_is_clean(lambda: read_params(path))
    if params is not None:
        assert all(math.isfinite(getattr(params, k)) for k in "LogG")
        members = outcome_is_clean(lambda: calibration_members(path, count=5))
        assert members is None or all(getattr(m, k) >= 0 for m in members for k in "LogG")


@seed(SEED)
@settings(settings.get_profile("fuzz"))
@given(mutated(_seed_file("loggp/pingpong.goal")))
def test_goal_files(folder, data):
    from perfcompose.loggp.goal.schedule import read_goal

    outcome_is_clean(lambda: read_goal(_write(folder, "schedule.goal", data)))


@seed(SEED)
@settings(settings.get_profile("fuzz"))
@given(mutated(_seed_file("skeleton/checksum.csv")))
def test_skeleton_tables(folder, data):
    from perfcompose.skeleton.table import read_table

    outcome_is_clean(lambda: read_table(_write(folder, "table.csv", data)))


@seed(SEED)
@settings(settings.get_profile("fuzz"))
@given(mutated(b"x=1024:262144:1024"))
def test_bench_grids(data):
    from perfcompose.bench import parse_grid

    grid = outcome_is_clean(lambda: parse_grid([data.decode("utf-8", "replace")]))
    if grid is not None:
        assert all(math.isfinite(v) for values in grid.values() for v in values)


@pytest.mark.parametrize("case", ["matmul_bcast.py", "psrs_original.py"])
def test_data_parallel_programs(folder, case):
    from perfcompose.pamela.dataparallel.modeling_engine import generate

    source = (Path(__file__).resolve().parents[2] / "src" / "perfcompose" / "pamela" / "dataparallel" / "cases" /
              case).read_bytes()

    @seed(SEED)
    @settings(settings.get_profile("fuzz"), max_examples=max(1, EXAMPLES_PER_READER // 2))
    @given(mutated(source))
    def read(data: bytes) -> None:
        outcome_is_clean(lambda: generate(_write(folder, "program.py", data)))

    read()
