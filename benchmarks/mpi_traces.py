"""Real MPI programs traced, turned into GOAL schedules and simulated, beside their measured time.

Programs (Debian packages built on Open MPI: ``apt-get install hpcc netpipe-openmpi lammps
libopenmpi-dev``; the tracer is built with ``mpicc.openmpi``):

* ``hpcc``: the HPC Challenge suite on a small input (HPL N = 500, block 80; PTRANS, FFT,
  RandomAccess, STREAM, DGEMM and the latency/bandwidth tests at their sizes for it);
* ``netpipe``: NetPIPE's ping-pong (``NPopenmpi``), 1 B to 64 KiB, 50 round trips a size, no
  perturbations (2 ranks only);
* ``lammps``: LAMMPS on its bundled Lennard-Jones melt (``examples/melt/in.melt``: 4,000 atoms),
  100 steps instead of its 250.

Per program and rank count: the median wall time of ``--repeat`` untraced runs (launch
included); one traced run (``perfcompose.loggp.trace.folder.trace_program``): its wall time, hence
the tracing overhead, and the span measured from its traces (first MPI_Init end to last
MPI_Finalize start); the schedule simulated with the parameters of ``--params`` (LogGOPSim's rules)
and the ratio of simulated to measured span; the seconds from traces to prediction (reading,
converting, writing the GOAL file, simulating) and, with ``--loggopsim DIR`` (a LogGOPSim build:
``txt2bin`` and ``LogGOPSim``), LogGOPSim's seconds on the same GOAL file (``txt2bin`` and the
simulation, the parameters rounded to whole ns as LogGOPSim takes them). More ranks than cores
share them; the table says how many cores there are and the load average beside every row.

    python benchmarks/mpi_traces.py [--programs hpcc,netpipe,lammps] [--ranks 2,4] [--repeat 3]
        [--params examples/loggp/params_local.json] [--loggopsim DIR]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from perfcompose.loggp.params import LogGP, read_params
from perfcompose.loggp.trace.check import check_schedule
from perfcompose.loggp.trace.folder import schedule_folder, trace_program

ROOT = Path(__file__).resolve().parent.parent
MPIEXEC = ["mpiexec.openmpi", "--oversubscribe"]
HPCC_INPUT = Path("/usr/share/doc/hpcc/examples/_hpccinf.txt")
LAMMPS_MELT = Path("/usr/share/lammps/examples/melt/in.melt")


def _hpcc(folder: Path, n: int) -> list[str]:
    """hpcc reads hpccinf.txt in its working folder: the example's, N = 500 on a P x Q grid of n."""
    p = max(d for d in range(1, int(n ** 0.5) + 1) if n % d == 0)
    text = HPCC_INPUT.read_text().replace("1000         Ns", "500          Ns")
    text = text.replace("2            Ps", f"{p}            Ps").replace("2            Qs", f"{n // p}            Qs")
    (folder / "hpccinf.txt").write_text(text)
    return ["hpcc"]


def _netpipe(folder: Path, n: int) -> list[str]:
    return ["NPopenmpi", "-u", "65536", "-n", "50", "-p", "0", "-o", str(folder / "np.out")]


def _lammps(folder: Path, n: int) -> list[str]:
    (folder / "in.melt").write_text(LAMMPS_MELT.read_text().replace("run\t\t250", "run\t\t100"))
    return ["lmp", "-in", "in.melt", "-log", "none", "-screen", "none"]


#: name -> (command for n ranks in a folder, the executable it needs, the rank counts it takes)
PROGRAMS: dict[str, tuple[Callable[[Path, int], list[str]], str, tuple[int, ...] | None]] = {
    "hpcc": (_hpcc, "hpcc", None),
    "netpipe": (_netpipe, "NPopenmpi", (2,)),
    "lammps": (_lammps, "lmp", None),
}


def _loggopsim(build: Path, goal: Path, params: LogGP) -> float:
    """Seconds of txt2bin and LogGOPSim on ``goal``."""
    ns = params.to("ns")
    t0 = time.perf_counter()
    subprocess.run([str(build / "txt2bin"), "-i", str(goal), "-o", str(goal.with_suffix(".bin"))], check=True,
                   capture_output=True)
    flags = [a for k in ("L", "o", "g", "G") for a in (f"-{k}", str(round(getattr(ns, k))))]
    subprocess.run([str(build / "LogGOPSim"), "-f", str(goal.with_suffix(".bin")), "-b", *flags], check=True,
                   capture_output=True)
    return time.perf_counter() - t0


def _wall(cmd: list[str], folder: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=folder, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", default="hpcc,netpipe,lammps")
    ap.add_argument("--ranks", default="2,4")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--params", type=Path, default=ROOT / "examples/loggp/params_local.json")
    ap.add_argument("--loggopsim", type=Path, default=None, help="folder of txt2bin and LogGOPSim")
    args = ap.parse_args()
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    params = read_params(args.params)
    cores = os.cpu_count() or 1
    print(f"{cores} cores; LogGP from {args.params.name}: L={params.L:.3g} o={params.o:.3g} g={params.g:.3g} "
          f"{params.unit}, G={params.G:.3g} {params.unit}/B; LogGOPSim rules")
    head = (f"{'program':8} {'ranks':>9} {'untraced s':>10} {'traced s':>9} {'overhead':>8} {'measured s':>10} "
            f"{'simulated s':>11} {'ratio':>6} {'to prediction s':>15} {'LogGOPSim s':>11} {'operations':>11} "
            f"{'load':>5}")
    print(head)
    for name in args.programs.split(","):
        make, exe, allowed = PROGRAMS[name]
        if shutil.which(exe) is None:
            print(f"{name:8} not installed ({exe} not on PATH)")
            continue
        for n in (int(v) for v in args.ranks.split(",")):
            if allowed and n not in allowed:
                continue
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp)
                cmd = [*MPIEXEC, "-n", str(n), *make(folder, n)]
                untraced = statistics.median(_wall(cmd, folder) for _ in range(args.repeat))
                cwd = os.getcwd()
                os.chdir(folder)
                try:
                    run, _ = trace_program(cmd, folder / "trace", mpicc="mpicc.openmpi")
                finally:
                    os.chdir(cwd)
                t0 = time.perf_counter()
                traced = schedule_folder(folder / "trace")
                c = check_schedule(traced, params)
                to_prediction = time.perf_counter() - t0
                theirs = (f"{_loggopsim(args.loggopsim, folder / 'trace' / 'schedule.goal', params):11.2f}"
                          if args.loggopsim else f"{'-':>11}")
            ranks = f"{n}" + (f" on {cores}" if n > cores else "")
            print(f"{name:8} {ranks:>9} {untraced:10.3f} {run.wall:9.3f} {run.wall / untraced - 1:8.1%} "
                  f"{c.measured:10.3f} {c.simulated:11.3f} {c.ratio:6.3f} {to_prediction:15.2f} {theirs} "
                  f"{traced.schedule.num_ops:11,} {os.getloadavg()[0]:5.1f}", flush=True)


if __name__ == "__main__":
    main()
