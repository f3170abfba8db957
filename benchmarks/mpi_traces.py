"""Real MPI programs traced, turned into GOAL schedules and simulated, beside their measured time.

Programs (Debian packages built on Open MPI: ``apt-get install hpcc netpipe-openmpi lammps
libopenmpi-dev meep-openmpi``; the tracer is built with ``mpicc.openmpi``):

* ``hpcc``: the HPC Challenge suite on a small input (HPL N = 500, block 80; PTRANS, FFT,
  RandomAccess, STREAM, DGEMM and the latency/bandwidth tests at their sizes for it);
* ``netpipe``: NetPIPE's ping-pong (``NPopenmpi``), 1 B to 64 KiB, 50 round trips a size, no
  perturbations (2 ranks only);
* ``lammps``: LAMMPS on its bundled Lennard-Jones melt (``examples/melt/in.melt``: 4,000 atoms),
  100 steps instead of its 250;
* ``meep``: MIT's finite-difference time-domain solver (``apt-get install meep-openmpi``) on a 2-D
  dielectric waveguide lit by a continuous source: 32 x 16 units at 10 cells a unit, 2,000 time
  steps, the ranks exchanging the fields at their chunks' borders every step.

The LogGP parameters are calibrated first, once, on the MPI the programs run on: ``loggp
calibrate --mpicc mpicc.openmpi`` (``probe.c`` built with Open MPI's wrapper and run by its
``mpiexec`` on 2 ranks; ``--reps`` repetitions, sizes 1 B to 1 MiB; G from the ping-pongs' one-way
time per byte, as the model's 2o + L + (s - 1)G has it, or with ``--bandwidth train`` from the
trains' gap per byte), written to ``--params-out``;
``--params FILE`` uses a parameter file instead. Nothing is fitted to the programs' own times.
Before the programs, a table sets the model's one-way ping-pong time, 2o + L + (s - 1)G, beside
the probe's measured RTT(s)/2 and, when NetPIPE runs, NetPIPE's own untraced one-way time per size.

Per program and rank count: the median wall time of ``--repeat`` untraced runs (launch
included); one traced run (``perfcompose.loggp.trace.tracer.trace_program``): its wall time, hence
the tracing overhead, and the span measured from its traces (first MPI_Init end to last
MPI_Finalize start); the schedule simulated with the parameters (LogGOPSim's rules) and the ratio
of simulated to measured span; the seconds from traces to prediction (reading, converting,
writing the GOAL file, simulating) and, with ``--loggopsim DIR`` (a LogGOPSim build: ``txt2bin``
and ``LogGOPSim``; or ``LOGGOPSIM_DIR``), LogGOPSim's seconds on the same GOAL file
(``txt2bin`` and the simulation, the parameters rounded to whole ns as LogGOPSim takes them). More
ranks than cores share them; the table says how many cores there are and the load average
beside every row. Last, the median of |simulated - measured| / measured over the programs at
2 ranks.

Messages above the MPI library's eager limit are written into the schedules as a rendezvous (a
1-byte request to send and clear to send before the data; ``--eager``, by default Open MPI's
``btl_vader_eager_limit`` as ``ompi_info`` gives it, 4,096 bytes; ``--eager none``: every message
at once, as Schedgen writes them).

    nice -n 19 python benchmarks/mpi_traces.py [--programs hpcc,netpipe,lammps,meep] [--ranks 2,4]
        [--repeat 3] [--reps 15] [--bandwidth ping-pong|train] [--params FILE | --params-out FILE]
        [--eager ompi|none|BYTES] [--loggopsim DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from perfcompose.loggp.calibrate.parameters import BANDWIDTH, CalibrationOptions, calibrate
from perfcompose.loggp.params import LogGP, read_params
from perfcompose.loggp.trace.tracer import schedule_folder, trace_program
from perfcompose.loggp.trace.whatif import check_schedule
from perfcompose.runtime.others import Mark, mark, others_since

ROOT = Path(__file__).resolve().parent.parent
MPIEXEC = ["mpiexec.openmpi", "--oversubscribe"]
MPICC = "mpicc.openmpi"
#: the sizes of NetPIPE's (bytes) shown in the ping-pong table
NETPIPE_SIZES = frozenset({1, 64, 512, 1024, 2048, 3072, 4096, 8192, 16384, 32768, 65536})
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


#: meep's input: a waveguide of epsilon 12 along x, a continuous Ez source near its left end, PML borders
MEEP_INPUT = """(set! geometry-lattice (make lattice (size 32 16 no-size)))
(set! geometry (list (make block (center 0 0) (size infinity 1 infinity) (material (make dielectric (epsilon 12))))))
(set! sources (list (make source (src (make continuous-src (frequency 0.15))) (component Ez) (center -14 0))))
(set! pml-layers (list (make pml (thickness 1.0))))
(set! resolution 10)
(run-until 100)
"""


def _meep(folder: Path, n: int) -> list[str]:
    (folder / "waveguide.ctl").write_text(MEEP_INPUT)
    return ["meep", "waveguide.ctl"]


#: name -> (command for n ranks in a folder, the executable it needs, the rank counts it takes)
PROGRAMS: dict[str, tuple[Callable[[Path, int], list[str]], str, tuple[int, ...] | None]] = {
    "hpcc": (_hpcc, "hpcc", None),
    "netpipe": (_netpipe, "NPopenmpi", (2,)),
    "lammps": (_lammps, "lmp", None),
    "meep": (_meep, "meep", None),
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


@contextmanager
def _output_to(path: Path) -> Iterator[None]:
    """The traced program's own output (NetPIPE prints every size) written to ``path`` rather than
    between this table's lines; its last lines are shown if the run fails."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    with path.open("w") as out:
        os.dup2(out.fileno(), 1)
        os.dup2(out.fileno(), 2)
        try:
            yield
        except Exception:
            os.dup2(saved[1], 2)
            print(*path.read_text().splitlines()[-20:], sep="\n", file=sys.stderr)
            raise
        finally:
            for fd, copy in enumerate(saved, 1):
                os.dup2(copy, fd)
                os.close(copy)


def _parameters(args: argparse.Namespace) -> tuple[LogGP, dict[int, float]]:
    """The parameters (from --params, or calibrated now on Open MPI) and the probe's one-way
    ping-pong time per size (us, from the calibration's raw table; empty for a file without one)."""
    if args.params is not None:
        print(f"LogGP from {args.params}")
        params, table = read_params(args.params), json.loads(args.params.read_text()).get("raw", {}).get("table", [])
    else:
        cal = calibrate(args.params_out, CalibrationOptions(reps=args.reps, mpicc=MPICC, mpiexec=MPIEXEC[0],
                                                            bandwidth=args.bandwidth))
        print(f"LogGP calibrated by loggp calibrate --mpicc {MPICC} --bandwidth {args.bandwidth} ({args.reps} "
              f"repetitions, C probe, 2 ranks) on {cal.raw_summary['library'].split(',')[0]}; written to "
              f"{args.params_out}")
        for note in cal.raw_summary["notes"]:
            print(f"  {note}")
        params, table = cal.params, cal.raw_summary["table"]
    rows = (line.split() for line in table)  # bytes, RTT, ... (medians, us)
    return params, {int(r[0]): float(r[1]) / 2 for r in rows if r and r[0].isdigit()}


def _netpipe_one_way(out: Path) -> dict[int, float]:
    """NetPIPE's one-way time per size (us) from its output file (bytes, Mbps, seconds)."""
    rows = (line.split() for line in out.read_text().splitlines())
    return {int(r[0]): float(r[2]) * 1e6 for r in rows if len(r) >= 3}


def eager_limit(choice: str) -> float | None:
    """The eager limit the schedules are built with: a number of bytes, ``none`` (every message at
    once), or ``ompi`` (Open MPI's shared-memory transport's ``btl_vader_eager_limit``, from
    ``ompi_info``; none where it is not found)."""
    if choice != "ompi":
        return None if choice == "none" else float(choice)
    out = subprocess.run(["ompi_info", "--param", "btl", "vader", "--level", "9"], capture_output=True,
                         text=True).stdout if shutil.which("ompi_info") else ""
    found = re.search(r'btl_vader_eager_limit" \(current value: "(\d+)"', out)
    return float(found.group(1)) if found else None


def _ping_pong_table(params: LogGP, probe: dict[int, float], netpipe: dict[int, float],
                     eager: float | None) -> None:
    if not probe and not netpipe:
        return
    us = params.to("us")
    print("one-way ping-pong time [us]: the model's 2o + L + (s-1)G (above the eager limit two 1-byte "
          "trips more) beside the measured")
    print(f"{'bytes':>9} {'model':>8} {'probe':>8} {'ratio':>6} {'NetPIPE':>8} {'ratio':>6}")
    for size in sorted({*probe, *(k for k in netpipe if k in NETPIPE_SIZES)}):
        model = us.message_time(size) + (2 * us.message_time(1) if eager is not None and size > eager else 0.0)
        cells = [f"{m:8.2f} {model / m:6.2f}" if (m := table.get(size)) else f"{'-':>8} {'-':>6}"
                 for table in (probe, netpipe)]
        print(f"{size:>9} {model:8.2f} {cells[0]} {cells[1]}")


def _others_share(before: tuple[Mark | None, float], cores: int) -> str:
    """The share of the machine's CPU time (all cores) that other programs took since ``before``
    (:func:`others.mark` with children, and the time then)."""
    others_s, span = others_since(before[0], children=True), time.perf_counter() - before[1]
    return f"{'-':>7}" if others_s is None or span <= 0 else f"{others_s / (span * cores):7.1%}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", default=",".join(PROGRAMS))
    ap.add_argument("--ranks", default="2,4")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--reps", type=int, default=15, help="calibration repetitions")
    ap.add_argument("--params", type=Path, default=None, help="parameter file instead of calibrating")
    ap.add_argument("--bandwidth", choices=BANDWIDTH, default="ping-pong",
                    help="calibrate G from the ping-pongs' one-way time per byte or the trains' gap per byte")
    ap.add_argument("--params-out", type=Path, default=ROOT / "benchmarks/data/params_openmpi.json")
    ap.add_argument("--eager", default="ompi",
                    help="messages above this many bytes go by rendezvous in the schedules: a number, none, or "
                         "ompi (Open MPI's btl_vader_eager_limit from ompi_info)")
    ap.add_argument("--loggopsim", type=Path, default=os.environ.get("LOGGOPSIM_DIR") or None,
                    help="folder of txt2bin and LogGOPSim")
    args = ap.parse_args()
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    cores = os.cpu_count() or 1
    params, probe = _parameters(args)
    eager = eager_limit(args.eager)
    print(f"{cores} cores; L={params.L:.3g} o={params.o:.3g} g={params.g:.3g} "
          f"{params.unit}, G={params.G:.3g} {params.unit}/B; LogGOPSim rules; "
          + ("every message at once" if eager is None else f"rendezvous above {eager:g} B"))
    if "netpipe" not in args.programs.split(","):
        _ping_pong_table(params, probe, {}, eager)
    head = (f"{'program':8} {'ranks':>9} {'untraced s':>10} {'traced s':>9} {'overhead':>8} {'measured s':>10} "
            f"{'simulated s':>11} {'ratio':>6} {'to prediction s':>15} {'LogGOPSim s':>11} {'operations':>11} "
            f"{'others':>7}")
    rows, errors = [], []
    for name in args.programs.split(","):
        make, exe, allowed = PROGRAMS[name]
        if shutil.which(exe) is None:
            rows.append(f"{name:8} not installed ({exe} not on PATH)")
            continue
        for n in (int(v) for v in args.ranks.split(",")):
            if allowed and n not in allowed:
                continue
            with tempfile.TemporaryDirectory() as tmp:
                folder, before = Path(tmp), (mark(children=True), time.perf_counter())
                cmd = [*MPIEXEC, "-n", str(n), *make(folder, n)]
                untraced = statistics.median(_wall(cmd, folder) for _ in range(args.repeat))
                if name == "netpipe":
                    _ping_pong_table(params, probe, _netpipe_one_way(folder / "np.out"), eager)
                cwd = os.getcwd()
                os.chdir(folder)
                try:
                    with _output_to(folder / "program.out"):
                        run, _ = trace_program(cmd, folder / "trace", mpicc=MPICC)
                finally:
                    os.chdir(cwd)
                t0 = time.perf_counter()
                traced = schedule_folder(folder / "trace", eager=eager)
                c = check_schedule(traced, params)
                to_prediction = time.perf_counter() - t0
                theirs = (f"{_loggopsim(args.loggopsim, folder / 'trace' / 'schedule.goal', params):11.2f}"
                          if args.loggopsim else f"{'-':>11}")
            ranks = f"{n}" + (f" on {cores}" if n > cores else "")
            if n == 2:
                errors.append(abs(c.ratio - 1))
            rows.append(f"{name:8} {ranks:>9} {untraced:10.3f} {run.wall:9.3f} {run.wall / untraced - 1:8.1%} "
                        f"{c.measured:10.3f} {c.simulated:11.3f} {c.ratio:6.3f} {to_prediction:15.2f} {theirs} "
                        f"{traced.schedule.num_ops:11,} {_others_share(before, cores)}")
    print(head, *rows, sep="\n", flush=True)
    if errors:
        print(f"median |simulated - measured| / measured at 2 ranks over {len(errors)} programs: "
              f"{statistics.median(errors):.1%}")


if __name__ == "__main__":
    main()
