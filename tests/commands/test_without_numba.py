"""The commands without Numba (perfcompose's ``numba`` extra not installed): each runs in a
process where ``import numba`` fails, and prints what it prints with Numba: ``loggp simulate``
with the compiled kernels and with the plain-Python references (the C extensions made
unimportable too; a line on standard error says so), ``pamela simulate`` (its event kernel as
plain Python), ``loggp gauss`` (the basic operations in NumPy) and ``demo``."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from perfcompose.loggp.gauss import run_gauss_study
from perfcompose.loggp.kernels.backend import SLOW
from perfcompose.loggp.params import LogGP

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NUMBA = ("numba", "llvmlite")
EXTENSIONS = tuple(f"perfcompose.loggp.kernels.{name}"
                   for name in ("_cstep", "_cgoal", "_cgoal_text", "_cjson_tokens", "_cmessage_rows"))

#: runs each command line in one process with the modules ``blocked`` unimportable (the
#: ``prelude`` first), and prints each one's exit status, output and errors as JSON, then the
#: name of the LogGP kernels' implementation
SCRIPT = """\
import contextlib, io, json, sys
for name in {blocked!r}:
    sys.modules[name] = None
{prelude}
from perfcompose.launch import main
from perfcompose.loggp.kernels.backend import describe
results = []
for argv in {argvs!r}:
    sys.argv = ["perfcompose", *argv]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main()
            code = 0
        except SystemExit as exc:
            code = exc.code
    results.append([code, out.getvalue(), err.getvalue()])
print(json.dumps([results, describe()]))
"""


def run(argvs: list[list[str]], blocked: tuple[str, ...] = (), *, prelude: str = "",
        cwd: Path | None = None) -> tuple[list[tuple[int, str, str]], str]:
    """(exit status, output, errors) of each command line, and the LogGP kernels' implementation."""
    code = SCRIPT.format(blocked=list(blocked), prelude=prelude, argvs=argvs)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results, kernels = json.loads(proc.stdout.splitlines()[-1])
    return [tuple(r) for r in results], kernels


LOGGP = str(EXAMPLES / "loggp")
SIMULATE = [["loggp", "simulate", f"{LOGGP}/fanin.json", "--L", "10", "--o", "2", "--g", "5", "--G", "0.01"],
            ["loggp", "simulate", f"{LOGGP}/fanin.json", "--L", "10", "--o", "2", "--g", "5", "--G", "0.01",
             "--worst-case"],
            ["loggp", "simulate", f"{LOGGP}/exchange.json", "--params", f"{LOGGP}/params_local.json",
             "--at", "x=1000", "--semantics", "loggopsim"],
            ["loggp", "simulate", f"{LOGGP}/pingpong.goal", "--L", "10", "--o", "2", "--g", "5", "--G", "0.01"],
            ["loggp", "simulate", f"{LOGGP}/exchange.json", "--params", f"{LOGGP}/params_local.json",
             "--at", "x=1000", "--ties", "random", "--seed", "3"]]


PAMELA = str(EXAMPLES / "pamela")
PAMELA_SIMULATE = [["pamela", "simulate", f"{PAMELA}/bus.pam", "N=2000", "P=8", "--json", "-"],
                   ["pamela", "simulate", f"{PAMELA}/mrm.pam", "P=20", "N=100", "-d", "exponential-service",
                    "--json", "-"],
                   ["pamela", "simulate", f"{PAMELA}/disk_farm.pam", "C=6", "R=50", "-d", "exponential", "--seed",
                    str(2 ** 32 - 1), "--json", "-"]]  # the largest seed pamela simulate takes


def test_the_simulators_print_the_same_with_their_kernels_as_plain_python():
    """``loggp simulate`` with the compiled kernels, without Numba and without the C extensions
    too; ``pamela simulate`` with Numba and without (one process per set of modules blocked)."""
    reference, _ = run(SIMULATE + PAMELA_SIMULATE)
    compiled, _ = run(SIMULATE + PAMELA_SIMULATE, NUMBA)
    plain, kernels = run(SIMULATE, NUMBA + EXTENSIONS)
    assert kernels == SLOW
    assert SLOW in plain[0][2]  # said once, on standard error
    for argv, want, got_compiled, got_plain in zip(SIMULATE, reference, compiled, plain):
        assert want[0] == 0 and "makespan" in want[1], (argv, want)
        assert got_compiled == want, argv
        assert got_plain[:2] == want[:2] and got_plain[2].replace(plain[0][2], "") == want[2], argv
    for argv, want, got in zip(PAMELA_SIMULATE, reference[len(SIMULATE):], compiled[len(SIMULATE):]):
        assert want[0] == got[0] == 0, (argv, want[2][-2000:], got[2][-2000:])
        want_json, got_json = json.loads(want[1]), json.loads(got[1])
        assert want_json.pop("wall_s") > 0 and got_json.pop("wall_s") > 0
        assert got_json == want_json, argv
        assert want_json["uses"] > 0


def test_gauss_times_the_operations_in_numpy_and_demo_runs(tmp_path):
    """``loggp gauss``'s predictions are those of this process's kernels from the same operation
    times; ``demo``, the README's first command, runs at the small sizes its test uses (both in
    one process)."""
    prelude = ("from dataclasses import replace\n"
               "import perfcompose.validate.paper as paper\n"
               "from perfcompose.bench import TASKS\n"
               "paper.QUICK_ROUNDS_T1, paper.QUICK_REPS_T1, paper.QUICK_ROUNDS = 2, 1, 1\n"
               "paper.QUICK_X = (1024.0, 2048.0)\n"
               "for name, task in list(TASKS.items()):\n"
               "    if 'x' in task.quick_grid:\n"
               "        TASKS[name] = replace(task, quick_grid={**task.quick_grid, 'x': (1024.0, 4096.0, 16384.0)})\n")
    gauss = ["loggp", "gauss", "--n", "120", "--p", "4", "--blocks", "10,20", "--reps", "1", "--json", "study.json"]
    ((code, out, err), (demo_code, demo_out, demo_err)), _ = run([gauss, ["demo", "--html", "demo.html"]], NUMBA,
                                                                  prelude=prelude, cwd=tmp_path)
    assert code == 0, err
    assert "NumPy, Numba not installed" in out
    study = json.loads((tmp_path / "study.json").read_text())
    times = {op: {int(b): t for b, t in by_block.items()} for op, by_block in study["op_times_us"].items()}
    assert all(t > 0 for by_block in times.values() for t in by_block.values())
    params = LogGP(*(study["params"][name] for name in ("L", "o", "g", "G")), unit="us")
    rows = run_gauss_study(120, 4, params, times, block_sizes=(10, 20))
    assert [(r.block, r.layout, r.steps, r.messages, r.forced, vars(r.standard), vars(r.worst)) for r in rows] == \
        [(r["block"], r["layout"], r["steps"], r["messages"], r["forced"], r["standard"], r["worst"])
         for r in study["rows"]]
    assert demo_code == 0, demo_err[-3000:]
    for task in ("nop", "inc", "qsort"):
        assert f"│ {task} " in demo_out, demo_out[:2000]
    assert "tpool_4(qsort)" in demo_out and (tmp_path / "demo.html").stat().st_size > 0
