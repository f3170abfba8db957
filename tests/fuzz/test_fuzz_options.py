"""Property-based fuzzing of the commands' options: each command line below runs and succeeds;
every option listed with it then gets values a user could type (numbers of every size, nan and
inf, text, names, assignments) in place of or beside the valid ones. Every run exits 2 with a
message, or 0 with finite output; never a traceback, another exit status or a hang.

The commands that measure, trace or write reports are fuzzed in test_fuzz_more_options.py.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_outcome import cli
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from test_fuzz_readers import EXAMPLES_PER_READER, SECONDS_PER_INPUT, SEED, time_limit

EX = Path(__file__).resolve().parents[2] / "examples"
OPTION_EXAMPLES = max(1, EXAMPLES_PER_READER // 50)
PARTS = ["-c", "a=536.185*x", "-c", "b=1034.17*x*log2(x)", "--unit", "ns"]

#: name -> (a command line that succeeds, the options whose values are fuzzed)
RUNS: dict[str, tuple[list[str], list[str]]] = {
    "show": (["show", str(EX / "tasks.csv")], ["--scaling", "--unit", "--format"]),
    "convert": (["convert", str(EX / "qsort.json"), "{tmp}/out.csv"], ["--to", "--from", "--scaling"]),
    "fit": (["fit", str(EX / "tasks.csv"), "--region", "inc"],
            ["--metric", "--region", "--aggregate", "--max-terms", "--poly-exponents", "--log-exponents", "--unit",
             "--scaling", "--extend"]),
    "analyze": (["analyze", str(EX / "callpaths.txt"), "--at", "p=4096"],
                ["--at", "--metric", "--values", "--threshold", "--top", "--param"]),
    "compose": (["compose", "pipe(a, tpool_2(b))", *PARTS, "--at", "x=1024"], ["--at", "--bind", "--unit", "--pipe",
                                                                              "-c"]),
    "laws": (["laws", "a", "b", *PARTS], ["--x", "--unit", "--pipe", "--bind"]),
    "explore": (["explore", "pipe(a, b)", *PARTS, "--threads", "4", "--x", "1024"],
                ["--threads", "--x", "--param", "--unit", "--bind"]),
    "predict": (["predict", str(EX / "designs" / "pipeline.toml")], ["--x", "--param", "--pipe"]),
    "pamela eval": (["pamela", "eval", str(EX / "pamela" / "mrm.pam"), "P=1000", "N=1e6"], ["--process", "--unit"]),
    "pamela compile": (["pamela", "compile", str(EX / "pamela" / "mrm.pam")], ["--process"]),
    "loggp simulate": (["loggp", "simulate", str(EX / "loggp" / "fanin.json"), "--L", "10", "--o", "2", "--g", "5",
                        "--G", "0.01"], ["--seed", "--ties", "--O", "--S", "--time-scale", "--at", "--semantics",
                                         "--gap-origin", "--L", "--G"]),
    "loggp convert": (["loggp", "convert", str(EX / "loggp" / "fanin.json"), "{tmp}/out.goal"],
                      ["--at", "--time-scale"]),
    "skeleton forecast": (["skeleton", "forecast", str(EX / "skeleton" / "checksum.csv"), "--at", "n=65536,p=4",
                           "--method", "lm", "--no-plot"],
                          ["--at", "--epsilon", "--degree", "--r", "--d", "--k", "--training", "--train", "--direction",
                           "--strategy", "--method", "--skeleton"]),
    # --reps, --rounds and --warmup ask for work in proportion to their value, shown with progress and
    # resumed from a checkpoint: a large count is a long run, not a hang
    "bench": (["bench", "nop", "--param", "x=1,2", "--reps", "1", "--warmup", "0", "--out", "{tmp}/nop.json"],
              ["--param", "--seed", "--timeout"]),
}

numbers = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10 ** 30, 10 ** 30),
                    st.sampled_from([0, 1, -1, 2, 1e-320, 1e308, 1e15, 1e16, -0.0, 0.5, 2 ** 53 + 1, 2 ** 63]))
names = st.text(alphabet="abcdefghijklmnopqrstuvwxyzINPx_0123456789=,:.-()*^ ", max_size=16)
values = st.one_of(numbers.map(str), names, st.sampled_from(["nan", "inf", "-inf", "zoo", "E", "I", "", " ", "x="]),
                   st.builds(lambda k, v: f"{k}={v}", st.sampled_from(["x", "n", "p", "P", "N", "nan"]),
                             numbers.map(str)),
                   st.builds(lambda a, b: f"{a}:{b}", numbers.map(str), numbers.map(str)),
                   st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=8))

CASES = [(name, option) for name, (_, options) in RUNS.items() for option in options]


@pytest.mark.skipif("PERFCOMPOSE_FUZZ_EXAMPLES" not in os.environ, reason="runs every command line (half a minute): "
                    "part of a fuzz campaign, not of the suite's small sample")
def test_each_command_line_runs(tmp_path):
    """The base lines succeed, so a refusal in the fuzzing below comes from the fuzzed value."""
    for name, (line, _) in RUNS.items():
        outcome = cli(*(a.replace("{tmp}", str(tmp_path)) for a in line))
        assert outcome.code == 0 and outcome.clean, (name, outcome.error or outcome.output[-2000:])


@pytest.mark.parametrize("name, option", CASES, ids=[f"{n}{o}" for n, o in CASES])
def test_any_option_value(name, option, tmp_path):
    line = [a.replace("{tmp}", str(tmp_path)) for a in RUNS[name][0]]

    @seed(SEED)
    @settings(settings.get_profile("fuzz"), max_examples=OPTION_EXAMPLES, deadline=None, database=None)
    @given(values, st.booleans())
    def run(value: str, beside: bool) -> None:
        args = list(line)
        if option in args and not beside:
            args[args.index(option) + 1] = value  # in place of the valid value
        else:
            args += [option, value]
        with time_limit(SECONDS_PER_INPUT * 3):
            outcome = cli(*args)
        assert outcome.clean, (args, outcome.code, outcome.error or outcome.output[-2000:])

    run()
