"""Property-based fuzzing of the CLI entry points: every run exits 2 with a message, or 0 with
finite output; never a traceback, another exit status, a signal or a hang.

Runs are in-process (typer's runner) except a small sample run as real processes, where a
signal (a crash of compiled code) would show as a negative return code.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from cli_outcome import cli, count
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from test_fuzz_readers import EXAMPLES_PER_READER, SECONDS_PER_INPUT, SEED, time_limit

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CLI_EXAMPLES = max(1, EXAMPLES_PER_READER // 15)

numbers = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10 ** 30, 10 ** 30),
                    st.sampled_from([0, 1, 1e-320, 1e308, 1e15, 1e16, -0.0, 0.5, 2 ** 53 + 1]))
number_text = st.one_of(numbers.map(str), st.text(max_size=8))
expressions = st.one_of(
    st.text(alphabet="x n ()+-*/^.,0123456789eElogsqrtmaxI", max_size=30),
    st.builds(lambda a, op, b: f"{a}{op}{b}", st.sampled_from(["x", "n", "log2(x)", "2", "1e308", "-x", "0"]),
              st.sampled_from(["+", "-", "*", "/", "**", "^"]), number_text))


def _check(*args: str) -> None:
    with time_limit(SECONDS_PER_INPUT * 3):
        outcome = cli(*args)
    assert outcome.clean, (args, outcome.code, outcome.error or outcome.output[-2000:])


@seed(SEED)
@settings(settings.get_profile("fuzz"), max_examples=CLI_EXAMPLES, deadline=None, database=None)
@given(expressions, expressions)
def test_compose_with_any_component_expressions(a, b):
    _check("compose", "pipe(a, tpool_2(b))", "-c", f"a={a}", "-c", f"b={b}")


@seed(SEED)
@settings(settings.get_profile("fuzz"), max_examples=CLI_EXAMPLES, deadline=None, database=None)
@given(number_text)
def test_predict_with_any_parameter_value(value):
    _check("predict", str(EXAMPLES / "designs" / "pipeline.toml"), "-p", f"n={value}")


@seed(SEED)
@settings(settings.get_profile("fuzz"), max_examples=CLI_EXAMPLES, deadline=None, database=None)
@given(numbers, numbers, numbers, numbers)
def test_loggp_simulate_with_any_parameters(L, o, g, G):
    _check("loggp", "simulate", str(EXAMPLES / "loggp" / "fanin.json"),
           f"--L={L}", f"--o={o}", f"--g={g}", f"--G={G}")


@seed(SEED)
@settings(settings.get_profile("fuzz"), max_examples=CLI_EXAMPLES, deadline=None, database=None)
@given(number_text, number_text)
def test_pamela_eval_with_any_parameters(n, p):
    _check("pamela", "eval", str(EXAMPLES / "pamela" / "owner_computes.pam"), f"N={n}", f"P={p}")


@seed(SEED)
@settings(settings.get_profile("fuzz"), max_examples=4, deadline=None, database=None)
@given(st.sampled_from([1e308, 1e300, 1.7976931348623157e308, 1e15, 5e-324, 0.0]),
       st.sampled_from(["L", "o", "g", "G"]))
def test_extreme_loggp_parameters_in_a_real_process_end_without_a_signal(value, name):
    flags = {"L": 1.0, "o": 1.0, "g": 1.0, "G": 0.01, name: value}
    fanin = str(EXAMPLES / "loggp" / "fanin.json")
    r = subprocess.run([sys.executable, "-m", "perfcompose", "loggp", "simulate", fanin,
                        *(f"--{k}={v!r}" for k, v in flags.items())],
                       capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "200"})
    count("crash" if r.returncode < 0 else {0: "accepted", 2: "refused"}.get(r.returncode, "wrong exit"))
    assert r.returncode in (0, 2), (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stderr and "nan" not in r.stdout.lower().split()
