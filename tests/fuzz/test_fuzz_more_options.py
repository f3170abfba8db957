"""Property-based fuzzing of the options of the commands that measure, trace or write reports: as in
test_fuzz_options.py, each command line below succeeds and every option listed with it then gets
values a user could type (numbers of every size, nan and inf, text, unicode, odd paths) in place
of or beside the valid one. Every run exits 2 with a message, or 0 with finite output and no
negative time; never a traceback, another exit status or a hang.

Each runs in one working folder per module, so that the measurements a command keeps
(.perfcompose/) are resumed by the next input rather than taken again. The commands in CAMPAIGN
measure for seconds even at their smallest (validate, demo, paper table2 and latency --quick with
the sizes of SMALL_QUICK; mapreduce on a Dask cluster started once for the module): they run in a
fuzz campaign (PERFCOMPOSE_FUZZ_EXAMPLES set), not in the suite's small sample.

The options that ask for work in proportion to their value (``--reps``, ``--rounds``, ``--count``,
``--warmup``, ``--train``, ``-R``, ``--x``) run under a low step limit (``--max-steps``): a value
that asks for more must be refused up front, before anything is measured. Left out: ``paper
table4/6/7`` (table2's options and code).
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from cli_outcome import cli
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from test_fuzz_options import OPTION_EXAMPLES, values
from test_fuzz_readers import SECONDS_PER_INPUT, SEED, time_limit

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "loggp" / "trace"))
from hand_traces import rank_trace, write_trace  # noqa: E402

EX = Path(__file__).resolve().parents[2] / "examples"
PY = sys.executable
MPIEXEC = str(Path(PY).parent / "mpiexec")
MPI = importlib.util.find_spec("mpi4py") is not None and Path(MPIEXEC).exists() and \
    bool((Path(PY).parent / "mpicc").exists() or shutil.which("mpicc"))
CAMPAIGN = "PERFCOMPOSE_FUZZ_EXAMPLES" in os.environ
SMALL_QUICK = {"QUICK_ROUNDS_T1": 2, "QUICK_REPS_T1": 1, "QUICK_X": (1024.0, 2048.0, 4096.0), "QUICK_ROUNDS": 1}
SMALL_TASK_GRID = (1024.0, 4096.0, 16384.0, 65536.0)
PROGRAM = Path(__file__).resolve().parents[2] / "src" / "perfcompose" / "pamela" / "dataparallel" / "cases" / \
    "matmul_bcast.py"
SCRIPT = "import sys\nsum(range(int(float(sys.argv[1]))))\n"
LOGGP = ["--L", "1", "--o", "1", "--g", "1", "--G", "0.01"]

#: name -> (a command line that succeeds, the options whose values are fuzzed, where the line
#: holds ``{trace}`` (a traced run's folder), ``{script}`` (a Python script) and ``{scheduler}``)
RUNS: dict[str, tuple[list[str], list[str]]] = {
    "loggp check": (["loggp", "check", "{trace}", *LOGGP], ["--L", "--o", "--g", "--G", "--S", "--algorithm",
                                                             "--params"]),
    # whatif, gauss and mapreduce run under a lower step limit: work the default allows may take minutes
    "loggp whatif": (["--max-steps", "1e7", "loggp", "whatif", "{trace}", *LOGGP, "--points", "3"],
                     ["--low", "--high", "--points", "--slowdown", "--L", "--G", "--S", "--network", "--plot",
                      "--json"]),
    "loggp gauss": (["--max-steps", "1e7", "loggp", "gauss", "--n", "60", "--p", "2", "--blocks", "10,20", "--reps",
                     "1"],
                    ["--n", "--p", "--blocks", "--L", "--o", "--g", "--G", "--seed", "--json"]),
    "loggp trace": (["loggp", "trace", "-o", "run", "--check", *LOGGP, "--", MPIEXEC, "-n", "2", PY, "-c",
                     "from mpi4py import MPI; MPI.COMM_WORLD.barrier()"],
                    ["--out", "--algorithm", "--buffer", "--L", "--G", "--S", "--mpicc"]),
    "pamela simulate": (["pamela", "simulate", str(EX / "pamela" / "mrm.pam"), "P=4", "N=100"],
                        ["--distribution", "--seed", "--process", "--json"]),
    "skeleton quality": (["skeleton", "quality", str(EX / "skeleton" / "checksum.csv")], ["--json"]),
    "profile": (["profile", "--param", "n=1,2", "--reps", "1", "-o", "p.json", "--", PY, "{script}", "{n}"],
                ["--param", "--profiler", "--min-share", "--timeout", "--seed", "-o"]),
    "paper calotoiu": (["paper", "calotoiu"], ["--json"]),
    "paper fig4": (["paper", "fig4", "--no-plot"], ["--plot", "--json"]),
    "paper lobachev": (["paper", "lobachev"], ["--json", "--html"]),
    "paper table1": (["paper", "table1", "--printed-rows"], ["--task", "--out", "--html"]),
    "pamela generate": (["pamela", "generate", "{program}", "-o", "model.pam"], ["-o", "--machine"]),
    # the work-size options, under a step limit a few seconds of work stay within
    "bench work": (["--max-steps", "1e5", "bench", "nop", "--param", "x=1,2", "--reps", "1", "--warmup", "0",
                    "--out", "b.json"], ["--reps", "--warmup", "--rounds"]),
    "profile work": (["--max-steps", "1e4", "profile", "--param", "n=1,2", "--reps", "1", "-o", "p.json", "--", PY,
                      "{script}", "{n}"], ["--reps"]),
    "loggp gauss work": (["--max-steps", "1e5", "loggp", "gauss", "--n", "60", "--p", "2", "--blocks", "10,20",
                          "--reps", "1"], ["--reps"]),
    # the measuring commands: a fuzz campaign's (see the module)
    "validate": (["validate", "nop", "--x", "1024,2048,4096", "--rounds", "1", "--count", "2"],
                 ["--x", "--workers", "--task", "--input", "--json", "--html"]),
    "validate work": (["--max-steps", "2e4", "validate", "nop", "--x", "1024,2048,4096", "--rounds", "1", "--count",
                       "2"], ["--rounds", "--count"]),
    "loggp calibrate": (["--max-steps", "3e6", "loggp", "calibrate", "--reps", "3", "--train", "2", "--sizes",
                         "1,4096,8192", "--out", "p.json"],
                        ["--sizes", "--out", "--raw", "--mpiexec", "--reps", "--train"]),
    "paper table5": (["--max-steps", "1e5", "paper", "table5", "--quick", "--picture", "small", "--x", "1", "-R", "1",
                      "--rounds", "1", "--scheduler", "{scheduler}"],
                     ["--picture", "--strategy", "--rounds", "--x", "-R", "--json"]),
    "paper table3": (["paper", "table3", "--quick"], ["--json"]),
    "paper vangemund": (["paper", "vangemund", "--quick", "--machine", "{machine}", "-o", "vg"],
                        ["--reps", "--clock", "--json", "--machine"]),
    "mapreduce": (["--max-steps", "1e7", "mapreduce", "--picture", "small", "-x", "1", "-R", "1", "--scheduler",
                   "{scheduler}"],
                  ["--picture", "--strategy", "-m", "-n", "-x", "-R", "--malloc-trim", "--timeout", "--scheduler"]),
    "demo": (["demo"], ["--plot", "--html"]),
    "paper table2": (["paper", "table2", "--quick"], ["--json", "--html"]),
    "paper latency": (["paper", "latency", "--quick"], ["--config", "--json"]),
}
CAMPAIGN_ONLY = {"validate", "validate work", "mapreduce", "demo", "paper table2", "paper latency", "loggp calibrate",
                 "paper table5", "paper table3", "paper vangemund"}
#: inputs per option for the commands that measure longest (demo: about 10 s each; vangemund a minute)
FEWER = {"demo": max(1, OPTION_EXAMPLES // 4), "paper table5": max(1, OPTION_EXAMPLES // 4),
         "paper table3": max(1, OPTION_EXAMPLES // 4), "paper vangemund": max(1, OPTION_EXAMPLES // 8)}

paths = st.one_of(st.sampled_from(["", ".", "..", "/", "-", "/proc/x.json", "/dev/null", "a/b/c.html", "é ü.html",
                                   "x" * 300, "sub/", "nul\x01.json", "~/x.json", "p.json"]),
                  st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=12))
PATH_OPTIONS = {"--json", "--html", "--plot", "--out", "-o", "--params", "--network", "--raw", "--machine", "--mpiexec"}

CASES = [(name, option) for name, (_, options) in RUNS.items() for option in options]


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The module's working folder: a traced run of two ranks (a message each way), a script."""
    folder = tmp_path_factory.mktemp("options")
    (folder / "trace").mkdir()
    ranks = ([("send", 10, 12, 1, 1, 4096), ("recv", 12, 14, 1, 2, 64), ("finalize", 20, 21)],
             [("recv", 10, 12, 0, 1, 4096), ("send", 12, 14, 0, 2, 64), ("finalize", 20, 21)])
    for r, calls in enumerate(ranks):
        write_trace(folder / "trace", rank_trace(r, 2, calls))
    (folder / "script.py").write_text(SCRIPT)
    return folder


@pytest.fixture(scope="module")
def vangemund_machine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A machine model of this computer, calibrated once for the module by a quick run."""
    folder = tmp_path_factory.mktemp("vangemund")
    assert cli("paper", "vangemund", "--quick", "-o", str(folder)).code == 0
    return folder / "machine.pam"


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """A Dask cluster of one worker thread in this process, for mapreduce --scheduler."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                      dashboard_address=None) as cluster:
        yield cluster.scheduler_address


@pytest.fixture
def small_quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """The quick measurements of demo and paper at the README test's small sizes."""
    import perfcompose.validate.paper as paper
    from perfcompose.bench import TASKS

    for name, value in SMALL_QUICK.items():
        monkeypatch.setattr(paper, name, value)
    for name, task in TASKS.items():
        if "x" in task.quick_grid:
            monkeypatch.setitem(TASKS, name, replace(task, quick_grid={**task.quick_grid, "x": SMALL_TASK_GRID}))


def _with(line: list[str], option: str, value: str, beside: bool) -> list[str]:
    """``line`` with ``value`` in place of the option's valid value, or the option added (before a
    ``--`` that starts the command a command runs)."""
    args = list(line)
    end = args.index("--") if "--" in args else len(args)
    if option in args[:end] and not beside:
        args[args.index(option) + 1] = value
    else:
        args[end:end] = [option, value]
    return args


@pytest.mark.parametrize("name, option", CASES, ids=[f"{n}{o}" for n, o in CASES])
def test_any_option_value(name: str, option: str, work: Path, small_quick: None, request: pytest.FixtureRequest,
                          monkeypatch: pytest.MonkeyPatch) -> None:
    if name in CAMPAIGN_ONLY and not CAMPAIGN:
        pytest.skip("measures for seconds per input: part of a fuzz campaign, not of the suite's small sample")
    if name in ("loggp trace", "loggp calibrate") and not MPI:
        pytest.skip("needs mpi4py, mpicc and mpiexec beside this Python (pip install -e '.[mpi]')")
    address = request.getfixturevalue("scheduler") if name == "mapreduce" else ""
    monkeypatch.chdir(work)
    machine = str(request.getfixturevalue("vangemund_machine")) if name == "paper vangemund" else ""
    line = [a.replace("{trace}", str(work / "trace")).replace("{script}", str(work / "script.py"))
            .replace("{program}", str(PROGRAM)).replace("{scheduler}", address).replace("{machine}", machine)
            for a in RUNS[name][0]]

    @seed(SEED)
    @settings(settings.get_profile("fuzz"), max_examples=FEWER.get(name, OPTION_EXAMPLES), deadline=None,
              database=None)
    @given(paths if option in PATH_OPTIONS else values, st.booleans())
    def run(value: str, beside: bool) -> None:
        args = _with(line, option, value, beside)
        with time_limit(SECONDS_PER_INPUT * 3):
            outcome = cli(*args)
        assert outcome.clean, (args, outcome.code, outcome.error or outcome.output[-2000:])

    run()
