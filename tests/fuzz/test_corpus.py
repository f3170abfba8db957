"""The inputs a fuzz campaign found crashing the CLI, kept as regression tests: each exits 2 with
a located message (or succeeds where the input is valid), never with a traceback or a signal."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_outcome import cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FANIN = str(EXAMPLES / "loggp" / "fanin.json")
PIPELINE = str(EXAMPLES / "designs" / "pipeline.toml")
FLAGS = ("--L", "1", "--o", "1", "--g", "1", "--G", "0")


def refused(*args: str, says: str = "") -> str:
    outcome = cli(*args)
    assert outcome.error is None, outcome.error
    assert outcome.code == 2, outcome.output
    assert says.lower() in outcome.output.lower(), outcome.output
    return outcome.output


def test_loggp_overhead_1e308_is_refused_not_a_segfault(tmp_path):
    params = tmp_path / "params.json"
    params.write_text('{"L": 1, "o": 1e308, "g": 1, "G": 0.01}')
    for extra in (["--L", "1", "--o", "1e308", "--g", "1", "--G", "0.01"], ["--params", str(params)]):
        r = subprocess.run([sys.executable, "-m", "perfcompose", "loggp", "simulate", FANIN, *extra],
                           capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "200"})
        assert r.returncode == 2, (r.returncode, r.stderr)
        assert "larger than" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("command", [
    ["fit", str(EXAMPLES / "qsort.json"), "--json", "{out}"],
    ["fit", str(EXAMPLES / "qsort.json"), "--plot", "{out}.png"],
    ["convert", str(EXAMPLES / "qsort.json"), "{out}"],
    ["predict", PIPELINE, "--json", "{out}"],
    ["bench", "nop", "-p", "x=1", "--reps", "1", "--warmup", "0", "--out", "{out}"],
], ids=["fit-json", "fit-plot", "convert", "predict-json", "bench-out"])
def test_writing_into_a_missing_folder_or_below_a_file_is_a_located_error(tmp_path, command):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    refused(*[c.replace("{out}", str(blocker / "out.json")) for c in command], says=str(blocker))
    out = tmp_path / "missing" / "out.json"
    outcome = cli(*[c.replace("{out}", str(out)) for c in command])
    out = out.with_suffix(".json.png") if command[2] == "--plot" else out
    assert outcome.error is None, outcome.error
    # a missing folder is either made (the file is then written) or named in the message
    assert (outcome.code == 0 and out.exists()) or (outcome.code == 2 and str(out.parent) in outcome.output)


def test_skeleton_forecast_default_plot_in_an_unwritable_folder_is_a_located_error(tmp_path, monkeypatch):
    blocker = tmp_path / "forecast.png"
    blocker.mkdir()  # the default output name is taken by a folder
    monkeypatch.chdir(tmp_path)
    refused("skeleton", "forecast", str(EXAMPLES / "skeleton" / "checksum.csv"), "--at", "n=65536,p=4",
            "--epsilon", "1", says="forecast.png")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_writing_into_a_read_only_folder_is_a_located_error(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    refused("fit", str(EXAMPLES / "qsort.json"), "--json", str(ro / "m.json"), says="permission")
    refused("convert", str(EXAMPLES / "qsort.json"), str(ro / "x.csv"), says="permission")


@pytest.mark.parametrize("model", ["log2(-x)", "I", "nan", "oo", "zoo", "x**1e9", "10**10**10", "2**2**2**2**2",
                                   "(" * 5000 + "x" + ")" * 5000])
def test_compose_refuses_models_that_are_not_finite_real(model):
    refused("compose", "seq(a, b)", "-c", f"a={model}", "-c", "b=x", says="component 'a'")


def test_laws_refuse_a_huge_power_and_a_thread_name_taken_by_a_stage():
    refused("laws", "a", "b", "-c", "a=2**2**2**2**2", "-c", "b=x", says="outside the range of a double")
    refused("laws", "a", "b", "-c", "a=x/n", "-c", "b=x", says="thread count name 'n'")


def test_tpool_of_nan_and_predict_at_zero_are_refused():
    refused("compose", "tpool(nan, qsort)")
    refused("predict", PIPELINE, "-p", "n=0", says="positive finite")
    refused("predict", PIPELINE, "-p", "n=inf", says="positive finite")


def test_text_that_is_not_utf8_is_a_located_error(write_file):
    table = write_file("t.csv", b"\xff\xfe")
    refused("skeleton", "quality", str(table), says="UTF-8")
    params = write_file("p.json", b"\xff\xfe{}")
    refused("loggp", "simulate", FANIN, "--params", str(params), says="UTF-8")


def test_csv_field_over_128_kib_and_json_number_of_5_mb_digits(write_file):
    table = write_file("big.csv", "n,p,time\n\"" + "1" * 200_000 + "\",1,2\n")
    refused("skeleton", "quality", str(table), says="field")
    refused("show", str(table))
    program = write_file("digits.json", '{"P": ' + "9" * 5_000_000 + ', "steps": []}')
    refused("loggp", "simulate", str(program), *FLAGS, says="digits")


def test_deep_nesting_is_refused_with_the_depth(write_file):
    deep_json = write_file("deep.json", "[" * 100_000 + "]" * 100_000)
    refused("show", str(deep_json), says="nested too deeply")
    refused("loggp", "simulate", str(deep_json), *FLAGS, says="nested too deeply")
    deep_toml = write_file("deep.toml", "a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    refused("predict", str(deep_toml), says="nested too deeply")
    refused("compose", "tpool_2(" * 500 + "a" + ")" * 500, "-c", "a=x", says="nested too deeply")
    refused("compose", "pipe(" + ", ".join(["a"] * 1000) + ")", "-c", "a=x", says="nested too deeply")


def test_a_folder_given_as_a_design_is_a_located_error():
    refused("predict", str(EXAMPLES), says="directory")


def test_pamela_numbers_beyond_a_double(write_file):
    tiny = write_file("tiny.pam", "numeric t = 1e-320\nprocess main = delay(t)\n")
    outcome = cli("pamela", "eval", str(tiny))
    assert outcome.code == 0 and outcome.clean, outcome.error or outcome.output
    huge = write_file("huge.pam", "numeric t = 1e999999\nprocess main = delay(t)\n")
    refused("pamela", "eval", str(huge), says="beyond the range of a double")


def test_model_record_whose_stats_hold_a_list(write_file):
    record = write_file("models.json", json.dumps(
        [{"region": "a", "model": {"expr": "Symbol('x', positive=True)", "stats": {"rss": [1, 2]}}}]))
    refused("compose", "seq(a, a)", "-c", f"a={record}", says="stats")


def test_loggp_message_from_rank_one_half_is_refused(write_file):
    program = json.loads(Path(FANIN).read_text())
    program["steps"][1]["messages"][0][0] = 0.5
    refused("loggp", "simulate", str(write_file("half.json", json.dumps(program))), *FLAGS)


# -- work beyond the limits: refused with the estimate before anything large is allocated --------

@pytest.mark.parametrize("args, says", [
    (["bench", "nop", "--param", "x=1:1e12:1", "--out", "{tmp}/b.json"], "1e+12 values"),
    (["bench", "nop", "-p", "x=1:10000:1", "-p", "y=1:10000:1", "--out", "{tmp}/b.json"], "1e+08 points"),
    (["show", "/dev/zero"], "not a regular file"),
    (["loggp", "gauss", "--n", "100000", "--blocks", "1"], "would need about"),
    (["pamela", "eval", str(EXAMPLES / "pamela" / "owner_computes.pam"), "N=1e9", "P=4"], "of 1e+09 values makes"),
    (["explore", "pipe(a, b)", "-c", "a=x", "-c", "b=x*log2(x)", "-T", "1000000000"], "steps"),
    (["compose", "seq(a, b)", "-c", "a=10**10**10", "-c", "b=x"], "outside the range of a double"),
])
def test_work_beyond_the_limits_is_refused_with_its_estimate(tmp_path, args, says):
    refused(*[a.replace("{tmp}", str(tmp_path)) for a in args], says=says)


def test_a_goal_schedule_of_a_billion_ranks_and_a_program_of_a_billion_processors(write_file):
    goal = write_file("big.goal", "num_ranks 1000000000\n\nrank 0 {\n  a: calc 100\n}\n")
    refused("loggp", "simulate", str(goal), *FLAGS, says="93.1 GiB")
    program = write_file("big.json", '{"P": 1000000000, "unit": "us", "steps": [{"kind": "comp", "durations": [1]}]}')
    refused("loggp", "simulate", str(program), *FLAGS)


def test_the_limits_can_be_raised_for_one_run(tmp_path):
    refused("--max-memory", "1KiB", "bench", "nop", "-p", "x=1:100:1", "--out", str(tmp_path / "b.json"),
            says="the limit is 1 KiB")


def test_a_two_million_row_csv_is_read(tmp_path):
    # row i depends on i mod 3500 only (100 sizes x 5 repetitions, values cycling over 7): the file
    # is that block of rows repeated, written without formatting two million rows one by one
    block = [f"k,time,ns,{1024 * (1 + (i // 5) % 100)},{i % 5 + 1},{1 + i % 7}\n" for i in range(3500)]
    whole, part = divmod(2_000_000, len(block))
    rows = "".join(block) * whole + "".join(block[:part])
    table = tmp_path / "big.csv"
    table.write_text("region,metric,unit,x,repetition,value\n" + rows)
    from perfcompose.data import load

    exp = load(table)
    assert sum(len(p.values) for p in exp.series[0].points) == 2_000_000


def test_pamela_par_of_a_billion_replicas(write_file):
    model = write_file("par.pam", "process main = par (i = 1, 1000000000) { delay(1) }\n")
    outcome = cli("pamela", "eval", str(model))
    assert outcome.clean and outcome.code == 0, outcome.error or outcome.output


def test_pamela_simulate_of_a_million_processors_is_refused():
    try:
        r = subprocess.run([sys.executable, "-m", "perfcompose", "pamela", "simulate",
                            str(EXAMPLES / "pamela" / "mrm.pam"), "P=1e6", "N=1e6"],
                           capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("ran past 30 s: the simulation was started instead of refused")
    assert r.returncode == 2 and "would" in r.stderr


def test_a_design_whose_sizes_are_beyond_a_double(write_file):
    text = (EXAMPLES / "designs" / "pipeline.toml").read_text()
    design = write_file("d.toml", text.replace("x = [1024,", "x = [" + "9" * 400 + ", 1024,"))
    refused("predict", str(design), says="x must be a list of positive numbers")


def test_a_point_where_the_model_is_undefined_is_refused():
    # log2(0): 0 x -inf is nan at x = 0, refused with the point, not printed
    refused("compose", "pipe(a, tpool_2(b))", "-c", "a=536.185*x", "-c", "b=1034.17*x*log2(x)", "--at", "x=0",
            says="--at x=0")


def test_a_parameter_the_program_does_not_have_is_refused():
    refused("predict", str(EXAMPLES / "designs" / "pipeline.toml"), "--param", "NaN=1",
            says="the program has no parameter 'NaN' (its parameters: x)")


def test_explore_at_a_size_where_the_stages_overflow_is_refused():
    refused("explore", "pipe(a, b)", "-c", "a=536.185*x", "-c", "b=1034.17*x*log2(x)", "--x", "1e308", "-T", "4",
            says="the time of a, b is not a finite time")


def test_a_threshold_beyond_what_a_percentage_can_show_is_refused():
    refused("analyze", str(EXAMPLES / "callpaths.txt"), "--at", "p=4096", "--threshold", "1e308", says="--threshold")


def test_a_size_at_which_a_component_overflows_is_refused():
    # qsort's 1034.17 x log2(x) ns is beyond a double at x = 1.7e302: refused, not printed as inf
    refused("predict", str(EXAMPLES / "designs" / "pipeline.toml"), "--x", "1.7313456447237183e+302",
            says="qsort is inf ns at x=1.73135e+302, not a finite time")


@pytest.mark.parametrize("command", [
    ["compose", "pipe(a, tpool_2(b))", "--at", "x=1024"], ["laws", "a", "b"],
    ["explore", "pipe(a, b)", "--x", "1024", "-T", "4"],
], ids=["compose", "laws", "explore"])
@pytest.mark.parametrize("unit", ["NaN", "parsecs", "cycles@0GHz"])
def test_an_unknown_unit_is_refused_not_printed(command, unit):
    output = refused(*command, "-c", "a=536.185*x", "-c", "b=2*x", "--unit", unit, says="--unit")
    assert "unknown time unit" in output and "cycles@CLOCK" in output


@pytest.mark.parametrize("scale", ["nan", "inf", "0", "-1", "1e300"])
def test_a_time_scale_that_makes_no_goal_integers_is_refused_and_writes_nothing(tmp_path, scale):
    goal = tmp_path / "fanin.goal"
    output = refused("loggp", "convert", FANIN, str(goal), "--time-scale", scale, says="time scale")
    assert not goal.exists(), output
    assert cli("loggp", "convert", FANIN, str(goal), "--time-scale", "1000").code == 0
    calc = [int(line.split("calc")[1]) for line in goal.read_text().splitlines() if "calc" in line]
    assert calc and all(0 <= c < 2 ** 63 for c in calc)


def test_a_pipe_beside_a_power_of_a_huge_degree_is_composed_at_once():
    """After these two compositions, ordering le*mr against -x**-476149643230/2 in the pipe's
    maximum asked SymPy for the real roots of a polynomial of that degree (a hang)."""
    from test_fuzz_readers import time_limit

    cli("compose", "pipe(a, tpool_2(b))", "-c", "a=73*t", "-c", "b=lrtI96")
    cli("compose", "pipe(a, tpool_2(b))", "-c", "a=lrtI96", "-c", "b=lrtI96")
    with time_limit(20):
        outcome = cli("compose", "pipe(a, tpool_2(b))", "-c", "a=le*mr", "-c", "b=-x**-476149643230")
    assert outcome.code == 0 and outcome.clean, outcome.error or outcome.output
    assert "le*mr" in outcome.output and "476149643230" in outcome.output  # both kept in the maximum


@pytest.mark.parametrize("p", ["-1e300", "-1e19"])
def test_a_resource_index_beyond_int64_is_refused_not_wrapped(p):
    """i mod P with P = -1e300 is -1e300 + i: it was cast to resource -9223372036854775808 and
    T_main printed as 0; a parameter below zero is refused before any index is made."""
    owner = str(EXAMPLES / "pamela" / "owner_computes.pam")
    output = refused("pamela", "eval", owner, "N=3", f"P={p}", says="is below zero")
    assert "9223372036854775808" not in output
