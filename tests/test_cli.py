"""The command line: the README's jobs work, and bad input exits 2 with one clear message.

The commands run in this process (tests/run_cli.py); the tests that start a process of their own
check what only a process shows: that it starts, the exit status and the streams the shell sees."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from run_cli import perfcompose
from validate_json import read_validate_json

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

run = perfcompose


def spawn(*args: str) -> subprocess.CompletedProcess:
    """``python -m perfcompose ARGS...`` in a process of its own."""
    env = {**os.environ, "COLUMNS": "200"}  # rich wraps table cells to the terminal width
    return subprocess.run([sys.executable, "-m", "perfcompose", *args], capture_output=True, text=True,
                          timeout=600, env=env)


def test_version():
    r = spawn("--version")
    assert r.returncode == 0 and r.stdout.startswith("perfcompose ")


def test_fit_bundled_example_prints_models_and_writes_json_and_plot(tmp_path):
    out, png = tmp_path / "models.json", tmp_path / "fit.png"
    r = run("fit", str(EXAMPLES / "tasks.txt"), "--json", str(out), "--plot", str(png))
    assert r.returncode == 0, r.stderr
    records = {rec["region"]: rec for rec in json.loads(out.read_text())}
    assert set(records) == {"nop", "inc", "qsort"}
    assert "x^(1) * log2(x)^(1)" in records["qsort"]["text"]
    assert {"smape", "adj_r2", "cv_error", "rss"} <= set(records["qsort"])
    assert png.stat().st_size > 10_000 and png.read_bytes()[:4] == b"\x89PNG"


def test_fit_selects_region_and_metric(tmp_path):
    r = run("fit", str(EXAMPLES / "tasks.csv"), "--region", "inc", "--aggregate", "mean")
    assert r.returncode == 0, r.stderr
    assert "inc" in r.stdout and "qsort" not in r.stdout


def _two_piece_csv(path: Path) -> Path:
    """A kernel whose cost per element quadruples past x = 100 (the data leave a cache)."""
    rows = ["region,metric,unit,x,repetition,value"]
    for x in (2, 4, 8, 16, 32, 64, 128, 256, 512, 1024):
        law = 5 + 2 * x if x <= 100 else 5 + 0.01 * x * x
        rows += [f"kernel,time,us,{x},{r},{law * (1 + 0.01 * (r - 2)):.6f}" for r in range(1, 4)]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_fit_segmented_reports_the_breakpoint_and_writes_a_piecewise_model(tmp_path):
    from perfcompose.model import Model

    out = tmp_path / "models.json"
    r = run("fit", str(_two_piece_csv(tmp_path / "kernel.csv")), "--segmented", "--json", str(out))
    assert r.returncode == 0, r.stderr
    assert "breakpoint" in r.stdout and "if x <=" in r.stdout
    (record,) = json.loads(out.read_text())
    assert record["segmented"] and 64 < record["breakpoint"] < 128
    model = Model.from_json(record["model"])
    assert model(x=50.0) == pytest.approx(105.0, rel=1e-3) and model(x=400.0) == pytest.approx(1605.0, rel=1e-3)


def test_fit_segmented_leaves_smooth_data_whole():
    r = run("fit", str(EXAMPLES / "tasks.txt"), "--segmented", "--region", "qsort")
    assert r.returncode == 0, r.stderr
    assert "if x <=" not in r.stdout


def test_fit_advise_suggests_points_with_reasons():
    r = run("fit", str(EXAMPLES / "tasks.txt"), "--advise", "--region", "inc", "--extend", "2")
    assert r.returncode == 0, r.stderr
    assert "next measurements for inc/time" in r.stdout and "noise widths" in r.stdout
    assert "1. at x=" in r.stdout


@pytest.mark.parametrize("args,message", [
    (("--segmented",), "splits along one"),
    (("--advise", "--extend", "0.5"), "at least 1"),
])
def test_fit_bad_segmented_or_advise_requests_exit_2(tmp_path, args, message):
    two = tmp_path / "grid.csv"
    lines = ["region,metric,unit,p,n,repetition,value"]
    lines += [f"r,time,s,{p},{n},1,{p * n}" for p in (2, 4, 8) for n in (10, 20, 40)]
    two.write_text("\n".join(lines) + "\n")
    r = run("fit", str(two), *args)
    assert r.returncode == 2 and message in r.stderr + r.stdout


def test_show_and_convert_round_trip(tmp_path):
    target = tmp_path / "tasks.json"
    assert run("convert", str(EXAMPLES / "tasks.txt"), str(target)).returncode == 0
    r = run("show", str(target))
    assert r.returncode == 0 and "qsort/time" in r.stdout and "CV %" in r.stdout


@pytest.mark.parametrize("content,name,message", [
    ('{"parameters": ["x"], "metric": "time", "points": [{"coordinate": {"x": 4}, "values": [-1.0]}]}',
     "neg.json", "negative value"),
    ("PARAMETER x\nPOINTS 4 8\nREGION r\nDATA 1\nDATA abc\n", "bad.txt", "line 5"),
    ("\x00\x01\x02binary", "blob.xyz", "cannot tell the format"),
    ("x,value\n4,1\n4,nan\n", "nan.csv", "not finite"),
    ('{"parameters": ["x"], "points": [{"coordinate": {"x": 4}, "values": [1.0]}]}', "nometric.json",
     "missing field 'metric'"),
    ('{"parameters": ["x"], "metric": "time", "points": [{"coordinate": {"x": 4}, "values": [1.0]},\n'
     ' {"coordinate": {"x": 4}, "values": [2.0]}]}', "dup.json", "duplicate coordinate"),
    ('{"parameters": ["x"], "metric": "time", "points": [{"coordinate": {"x": 4}, "values": []}]}',
     "empty.json", "no repetitions"),
    ('{"parameters": ["x", "n"], "metric": "time", "points": [{"coordinate": {"x": 4, "n": 1}, "values": [1]},\n'
     ' {"coordinate": {"x": 8}, "values": [2]}]}', "params.json", "differ from the parameters"),
    ("PARAMETER x\nPOINTS 4 8\nREGION r\nDATA 1\nDATA -2\n", "neg.txt", "line 5"),
    ('{"parameters": ["x"], "measurements": {"r": {"time": [{"point": [4], "values": ["a"]}]}}}', "bad.json",
     "not a finite number"),
])
def test_bad_input_exits_2_with_message_and_no_traceback(tmp_path, content, name, message):
    path = tmp_path / name
    path.write_text(content)
    for command in ("show", "fit"):
        r = run(command, str(path))
        assert r.returncode == 2
        assert message in r.stderr
        assert "Traceback" not in r.stderr + r.stdout


def test_missing_file_exits_2(tmp_path):
    r = run("fit", str(tmp_path / "nothing.json"))
    assert r.returncode == 2 and "no such file" in r.stderr


def test_a_process_given_bad_input_exits_2_with_one_message_on_stderr(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("PARAMETER x\nPOINTS 4 8\nREGION r\nDATA 1\nDATA abc\n")
    r = spawn("fit", str(path))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("error: ") and "line 5" in r.stderr and "Traceback" not in r.stderr


def test_too_few_points_exits_2(tmp_path):
    path = tmp_path / "two.csv"
    path.write_text("x,value\n4,1\n8,2\n")
    r = run("fit", str(path))
    assert r.returncode == 2 and "at least 3" in r.stderr


PAPER = ["-c", "nop=5422.97", "-c", "inc=536.185*x", "-c", "qsort=1034.17*x*log2(x)", "--unit", "ns"]


def test_compose_prints_the_model_on_its_first_line():
    r = run("compose", "tpool_4(qsort)", *PAPER)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == "258.5425*x*log2(x)"
    r = run("compose", "seq(inc, nop)", *PAPER, "--json", "-")  # the JSON alone on stdout, the model line on stderr
    assert r.stderr.splitlines()[0] == "5422.97 + 536.185*x"
    assert json.loads(r.stdout)["unit"] == "ns"


def test_compose_at_shows_the_model_its_prediction_comes_from_when_workers_outnumber_cores():
    from perfcompose.compose.oversubscription import machine_cores

    cores = machine_cores()
    if cores >= 256:
        pytest.skip("this machine has a core for each of the 256 workers")
    r = run("compose", "tpool_256(qsort)", *PAPER, "--at", "x=65536")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].endswith("*x*log2(x)")  # the design: 256 workers, each on its own core
    assert float(lines[0].split("*")[0]) == pytest.approx(1034.17 / 256)
    assert lines[2].startswith(f"with the workers sharing this machine's {cores} cores: Max(")
    assert lines[3].startswith(f"at x=65536 (the workers sharing {cores} cores): ")
    value = float(lines[3].split(":")[1].split()[0])
    assert value == pytest.approx(1034.17 * 65536 * 16 / cores, rel=1e-5)


def test_compose_fits_a_component_from_measurements():
    r = run("compose", "pipe(tpool_2(qsort), inc)", "-c", f"qsort={EXAMPLES / 'tasks.csv'}:qsort",
            "-c", f"inc={EXAMPLES / 'tasks.csv'}:inc")
    assert r.returncode == 0, r.stderr
    assert "x*log2(x)" in r.stdout.splitlines()[0]


# the parser's own messages are tested in tests/compose/test_parser.py; here, that a bad term (one
# the parser cannot read, one naming a component the command line was not given) exits 2
@pytest.mark.parametrize("term, needle", [("seq(qsort, inc", "never closed"),
                                          ("pipe(qsort, incc)", "unknown component 'incc'")])
def test_bad_terms_exit_2_with_a_located_message(term, needle):
    r = run("compose", term, *PAPER)
    assert r.returncode == 2
    assert needle in r.stderr and "term, line 1, column" in r.stderr and "^" in r.stderr
    assert "Traceback" not in r.stderr


def test_laws_report_equalities_and_the_inequality():
    r = run("laws", "nop", "inc", "qsort", *PAPER)
    assert r.returncode == 0, r.stderr
    out = " ".join(r.stdout.split())
    for law in ("(i) associativity of pipe (equality): holds", "(ii) commutativity of pipe (equality): holds",
                "(iii) layering neutrality (equality): holds", "(iv) pipe vs task pool of seq (inequality): holds"):
        assert law in out


def test_laws_find_a_counter_example():
    r = run("laws", "-c", "setup=1e6", "-c", "scan=x")
    assert r.returncode == 0, r.stderr
    out = " ".join(r.stdout.split())
    assert "fails at x=1024" in out and "(iv) pipe vs task pool of seq (inequality): fails in 1 of 1" in out


def test_explore_recommends_and_splits_threads():
    r = run("explore", "pipe(qsort, inc, nop)", *PAPER, "--threads", "8", "--x", "65536")
    assert r.returncode == 0, r.stderr
    out = " ".join(r.stdout.split())
    assert "bottleneck: qsort" in out and "qsort: 6, inc: 1, nop: 1" in out


def test_predict_a_design_with_plot(tmp_path):
    png = tmp_path / "p.png"
    r = run("predict", str(EXAMPLES / "designs" / "pipeline.toml"), "--plot", str(png))
    assert r.returncode == 0, r.stderr
    assert "model: Max(5422.97, 536.185*x, 258.543*x*log2(x))" in r.stdout and "tpool_4(qsort) > qsort" in r.stdout
    assert "expression" in r.stdout  # each component's source
    assert png.stat().st_size > 10_000


def test_predict_asks_for_symbolic_counts(tmp_path):
    design = tmp_path / "d.toml"
    design.write_text('program = "tpool_n(a)"\n[components]\na = "x"\n')
    r = run("predict", str(design))
    assert r.returncode == 2 and "--param n=4" in r.stderr


def test_demo_measures_fits_composes_and_plots(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from perfcompose.bench import TASKS
    from perfcompose.cli import app
    from perfcompose.compose import oversubscription
    from perfcompose.validate import paper

    monkeypatch.setattr(oversubscription, "machine_cores", lambda: 2)
    # the quick sweep at 4 sizes of x in 2 rounds of one repetition, instead of 33 sizes in 11 rounds of 3
    monkeypatch.setattr(paper, "QUICK_ROUNDS_T1", 2)
    monkeypatch.setattr(paper, "QUICK_REPS_T1", 1)
    for name in ("nop", "inc", "qsort"):
        task = TASKS[name]
        monkeypatch.setitem(TASKS, name, replace(task, quick_grid={**task.quick_grid,
                                                                   "x": (1024.0, 4096.0, 16384.0, 65536.0)}))
    monkeypatch.chdir(tmp_path)
    png = tmp_path / "demo.png"
    r = CliRunner(env={"COLUMNS": "200"}).invoke(app, ["demo", "--plot", str(png)])
    assert r.exit_code == 0, r.output
    out = " ".join(r.stdout.split())
    for config in ("seq(qsort, nop)", "tpool_24(qsort)", "pipe(inc, nop)", "1034.17*x*log2(x)", "1105.29*x*log2(x)"):
        assert config in out
    assert png.stat().st_size > 10_000
    html = (tmp_path / "demo.html").read_text()  # the report, written by default
    assert "<svg" in html
    # the core count each prediction assumes, and the pools wider than the machine flagged
    assert "a core per thread (this machine has 2)" in r.output
    flagged = [line for line in r.output.splitlines() if line.startswith("│") and " !" in line]
    assert any("tpool_24(qsort)" in line for line in flagged) and any("tpool_4(qsort)" in line for line in flagged)
    assert not any(line.split("│")[1].strip() in ("qsort", "seq(qsort, inc)") for line in flagged)
    assert "more threads than this machine's 2 cores" in r.output and "tpool_24(qsort)" in r.output
    assert "this machine has 2 cores" in html and "24 (&gt; 2 cores)" in html


def test_paper_table1_quick_one_task(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # where its checkpoints may stay (.perfcompose/ in the working directory)
    r = run("paper", "table1", "--quick", "--task", "map_small", "--out", str(tmp_path / "t1.json"))
    assert r.returncode == 0, r.stderr
    assert "map_small" in r.stdout and "(std)" in r.stdout
    assert (tmp_path / "t1_map_small.json").exists()
    assert (tmp_path / ".perfcompose" / "table1_map_small_quick.checkpoint.jsonl").exists()


def test_validate_prints_the_table_and_writes_one_record_per_configuration(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "v.json"
    # tpool_512 has more workers than a test machine has cores (tpool_8 would run where there are 8)
    r = run("validate", "seq(inc, nop)", "pipe(inc, qsort)", "tpool_512(qsort)", "--x", "1024,2048,4096",
            "--reps", "1", "--count", "4", "--json", str(out))
    assert r.returncode == 0, r.stderr
    assert "pipe(inc, qsort)" in r.stdout and "calibrated" in r.stdout
    assert "skipped tpool_512(qsort): 512 workers" in r.stdout
    _, records = read_validate_json(out)
    assert set(records) == {"seq(inc, nop)", "pipe(inc, qsort)"}
    rec = records["pipe(inc, qsort)"]
    assert len(rec["measured"]) == 3 and all(v > 0 for v in rec["measured"])
    assert 0 <= rec["error_calibrated"] and 0 <= rec["error_paper"]
    assert (tmp_path / ".perfcompose").is_dir()


@pytest.mark.parametrize("args, message", [
    (["validate", "pipe(inc, qsrot)", "--x", "1024,2048,4096"], "unknown component 'qsrot'"),
    (["validate", "pipe(inc, qsort)", "--x", "1024,2048"], "at least 3 input sizes"),
    (["validate", "tpool_n(qsort)", "--x", "1024,2048,4096"], "no thread count"),
])
def test_validate_bad_input_exits_2(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    r = run(*args)
    assert r.returncode == 2
    assert message in r.stderr and "Traceback" not in r.stderr


CASES = Path(__file__).resolve().parent.parent / "src" / "perfcompose" / "skeleton" / "cases"


def test_skeleton_forecast_prints_parts_errors_and_plot(tmp_path):
    out, png = tmp_path / "f.json", tmp_path / "f.png"
    r = run("skeleton", "forecast", str(CASES / "gauss.csv"), "--at", "n=120,p=7", "--method-t", "lm-poly",
            "--method-a", "mean", "--json", str(out), "--plot", str(png))
    assert r.returncode == 0, r.stderr
    assert "T(120, 7) =" in r.stdout and "hold-out errors" in r.stdout and "relative error" in r.stdout
    doc = json.loads(out.read_text())
    assert doc["measured"] == 6.2055 and abs(doc["error"]) < 0.05 and png.stat().st_size > 0


def test_skeleton_forecast_auto_that_cannot_choose_exits_2():
    r = run("skeleton", "forecast", str(CASES / "rabin_miller.csv"), "--at", "n=11213,p=8", "--no-plot")
    assert r.returncode == 2 and "measure more points" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("args, message", [
    (("--at", "n=120"), "needs both n and p"),
    (("--at", "n=abc,p=7"), "is not a number"),
    (("--at", "n=120,p=7", "--skeleton", "pipeline"), "'pipeline' is not one of"),
    (("--at", "n=120,p=7", "--method", "cubic"), "'cubic' is not one of"),
])
def test_skeleton_forecast_bad_options_exit_2(args, message):
    r = run("skeleton", "forecast", str(CASES / "gauss.csv"), "--no-plot", *args)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


def test_skeleton_bad_table_exits_2_with_line(write_file):
    bad = write_file("bad.csv", "n,p,time\n10,1,2.0\n10,1,2.5\n")
    r = run("skeleton", "quality", str(bad))
    assert r.returncode == 2 and "line 3" in r.stderr and "duplicate" in r.stderr


def test_skeleton_quality_prints_penalty_and_serial_fraction():
    r = run("skeleton", "quality", str(CASES / "rabin_miller.csv"))
    assert r.returncode == 0, r.stderr
    assert "n = 9689" in r.stdout and "0.009386" in r.stdout  # f(9689, 7), Figure 7(c): 0.009379


def test_paper_lobachev_prints_and_writes_records(tmp_path):
    out = tmp_path / "l.json"
    r = run("paper", "lobachev", "--json", str(out))
    assert r.returncode == 0, r.stderr
    assert "Rabin-Miller" in r.stdout and "lm(poly) + mean" in r.stdout
    recs = json.loads(out.read_text())
    row = next(x for x in recs if x["method"] == "lm(poly) + mean")
    assert row["paper"] == "21.78" and abs(row["ours"] - 21.78) < 0.01 and row["reproduced"] is True


def test_table4_spread_counts_every_nesting_of_the_pipes(capsys):
    from types import SimpleNamespace

    from perfcompose.commands.paper_tables import _print_spreads
    from perfcompose.compose.parser import parse_term
    from perfcompose.model import Model

    group = ["pipe(pipe(qsort, inc), nop)", "pipe(qsort, pipe(inc, nop))"]
    comparisons = [SimpleNamespace(configuration=str(parse_term(g)), monolithic=Model.parse(m, unit="ns"))
                   for g, m in zip(group, ["100 + 3.0*x*log2(x)", "100 + 3.3*x*log2(x)"])]
    _print_spreads(SimpleNamespace(comparisons=comparisons), [group])
    assert "within 10.0 %" in capsys.readouterr().out


def test_fit_takes_extraps_exponent_sets():
    r = run("fit", str(EXAMPLES / "tasks.txt"), "--region", "inc", "--poly-exponents", "0,1", "--log-exponents", "0")
    assert r.returncode == 0 and "x^(1)" in r.stdout
    bad = run("fit", str(EXAMPLES / "tasks.txt"), "--poly-exponents", "1,two")
    assert bad.returncode == 2 and "'two' is not an exponent" in bad.stderr
