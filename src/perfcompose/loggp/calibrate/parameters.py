"""Calibrating L, o, g, G on a real MPI (mpi4py over MPICH), Netgauge-style, on two ranks.

:mod:`.mpi_probe` measures, per repetition, in seconds: ping-pong round trips RTT(s); trains of 1
and N back-to-back messages closed by an ack, T1(s) and TN(s); and a train of N 1-byte messages
spaced by a delay d, PRTT(N, d, 1). Per repetition (times then in microseconds):

* gap(s) = (TN(s) - T1(s)) / (N - 1)                  (Netgauge: g + (s-1)G)
* g = gap(1 byte)
* G = the Theil-Sen slope of gap(s) over the sizes >= 4 KiB (the long-message regime, up to
  16 MiB by default: past the caches, as an application's buffers are, not only a buffer the
  probe sends again and again from its cache); with
  ``bandwidth="ping-pong"`` the slope of RTT(s)/2 there instead: the one-way time per byte,
  o + (s-1)G + L + o, which on shared memory (a copy in and a copy out, in series for one
  message, overlapped in a train) can be twice the train's
* o = (PRTT(N, d, 1) - T1(1) - D) / (N - 1)          (Netgauge's overhead, (N - 1)(d + o) = PRTT - T1)

where D is the time of the delayed train's loop without its sends: the N - 1 spins of d as the
Python loop really runs them (each overshoots d by a clock read and the loop's own work, which
would otherwise count as overhead); figures without it take D = (N - 1) d.
* L = RTT(1)/2 - 2o                                   (one way: o + L + o)

On shared memory a sender's overhead can exceed a quarter of the round trip (the receiver polls,
so its part of the one-way time is short): there o is taken as RTT(1)/4 and L as 0, so that the
model's ping-pong keeps the measured round trip, and the calibration says so in its notes.

Each parameter is the median over repetitions, with its quartiles and extremes as the spread. A
parameter that is not finite, not positive, or implausible (a latency or overhead above a
second, a bandwidth below 1 MB/s) is an error that shows the raw figures, never a silent value.
The figures come from :mod:`.mpi_probe` (mpi4py: MPI as a Python program sees it, its call
overhead part of o) or from ``probe.c`` built with an MPI's own compiler wrapper and run by its
mpiexec (:func:`run_probe`: MPI as a C or Fortran program on that MPI sees it).
"""
from __future__ import annotations

import importlib.util
import json
import math
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np

from perfcompose.errors import InputError, PerfcomposeError
from perfcompose.loggp.params import LogGP, write_params
from perfcompose.option_fields import option

__all__ = ["SIZES", "BANDWIDTH", "CalibrationOptions", "CalibrationError", "Calibration", "derive_parameters",
           "mpiexec_for", "run_probe", "run_ranks", "calibrate"]

_NAMES = ("L", "o", "g", "G")
MIN_G_SIZE = 4096
#: the probes' message sizes [bytes] unless the caller names others: 1 B to 16 MiB
SIZES = "1,64,1024,4096,16384,65536,262144,1048576,4194304,16777216"
#: where G is measured: the gap per byte of message trains, or the one-way time per byte of ping-pongs
BANDWIDTH = ("train", "ping-pong")
#: the largest 2o / (RTT/2) taken as an overhead that the receiver's polling hides (o := RTT/4);
#: beyond it the figures contradict each other and calibration fails
_MAX_OVERHEAD_SHARE = 3.0
_INSTALL = "install an MPI with its compiler wrapper (apt-get install libopenmpi-dev), or name it with --mpicc"


@dataclass(frozen=True)
class CalibrationOptions:
    """How the probe measures, declared once for ``loggp calibrate`` and every caller of :func:`calibrate`."""

    reps: int = option(15, "Repetitions (each parameter is their median).", minimum=3)
    train: int = option(16, "Messages per train.", minimum=2)
    sizes: str = option(SIZES, "Message sizes in bytes, comma separated.")
    mpiexec: str | None = option(None, "mpiexec to use (default: with --mpicc the one of that MPI, else the one next "
                                       "to this Python, else on PATH).")
    mpicc: str | None = option(None, "Measure with a C probe built by this MPI compiler wrapper (the MPI the traced "
                                     "programs use, e.g. mpicc.openmpi) instead of mpi4py.")
    bandwidth: str = option("train", "Measure G from the gap per byte of message trains (train), or from the one-way "
                                     "time per byte of ping-pongs (ping-pong: messages that wait on each other).")


class CalibrationError(PerfcomposeError):
    """Calibration that cannot run, or whose figures do not give sensible parameters."""


@dataclass(frozen=True)
class Calibration:
    """Calibrated parameters (medians, in microseconds) with their spread over repetitions and
    the per-repetition values they come from."""

    params: LogGP
    spread: dict[str, dict[str, float]]
    per_rep: dict[str, list[float]]
    raw_summary: dict[str, Any]


def _theil_sen(x: np.ndarray, y: np.ndarray) -> float:
    """The median of the pairwise slopes: a line fit that a few outliers do not move."""
    i, j = np.triu_indices(len(x), k=1)
    return float(np.median((y[j] - y[i]) / (x[j] - x[i])))


def _rep_parameters(rep: Mapping[str, Any], sizes: list[int], train: int, delay: float,
                    bandwidth: str) -> dict[str, float]:
    us = 1e6
    t1, tn = ({int(k): v * us for k, v in rep[key].items()} for key in ("train1", "trainN"))
    gap = {s: (tn[s] - t1[s]) / (train - 1) for s in sizes}
    per_byte = gap if bandwidth == "train" else {s: rep["rtt"][str(s)] * us / 2 for s in sizes}
    big = [s for s in sizes if s >= MIN_G_SIZE]
    G = _theil_sen(np.array(big, float), np.array([per_byte[s] for s in big])) if len(big) >= 2 else math.nan
    spins = rep.get("delayed_dry", (train - 1) * delay) * us
    o = (rep["delayed"] * us - t1[min(sizes)] - spins) / (train - 1)
    half = rep["rtt"][str(min(sizes))] * us / 2
    if 0 < half < 2 * o <= _MAX_OVERHEAD_SHARE * half:  # the overheads alone exceed the one-way time
        o = half / 2
    return {"L": half - 2 * o, "o": o, "g": gap[min(sizes)], "G": G}


def _raw_table(raw: Mapping[str, Any]) -> str:
    sizes, train = raw["sizes"], raw["train"]
    lines = ["raw figures (medians over repetitions, microseconds):",
             f"  {'bytes':>9} {'RTT':>10} {'train 1':>10} {'train N':>10} {'gap':>10}"]
    for s in sizes:
        rtt, a, b = (np.median([r[key][str(s)] for r in raw["reps"]]) * 1e6 for key in ("rtt", "train1", "trainN"))
        lines.append(f"  {s:>9} {rtt:>10.3f} {a:>10.3f} {b:>10.3f} {(b - a) / (train - 1):>10.4f}")
    delayed = np.median([r["delayed"] for r in raw["reps"]]) * 1e6
    send, recv = (np.median([np.median(r[k]) for r in raw["reps"]]) * 1e6 for k in ("send_overhead", "recv_overhead"))
    dry = [r["delayed_dry"] for r in raw["reps"] if "delayed_dry" in r]
    spins = f" (its spins alone {np.median(dry) * 1e6:.3f})" if dry else ""
    lines.append(f"  delayed train of {train} (d = {raw['delay'] * 1e6:g} us): {delayed:.3f}{spins}; "
                 f"send call {send:.3f}; receive call of an arrived message {recv:.3f}")
    return "\n".join(lines)


def derive_parameters(raw: Mapping[str, Any], bandwidth: str = CalibrationOptions.bandwidth) -> Calibration:
    """LogGP parameters (microseconds) from the probe's raw figures, G from the trains' gaps or
    (``bandwidth="ping-pong"``) from the round trips; sanity-checked."""
    if bandwidth not in BANDWIDTH:
        raise CalibrationError(f"bandwidth {bandwidth!r}: measure G from one of {', '.join(BANDWIDTH)}")
    sizes, train, delay = list(raw["sizes"]), int(raw["train"]), float(raw["delay"])
    reps = raw["reps"]
    if not reps or train < 2 or len(sizes) < 3:
        raise CalibrationError("the raw figures hold too little to calibrate from "
                               f"({len(reps)} repetitions, train of {train}, {len(sizes)} sizes)")
    found = [_rep_parameters(rep, sizes, train, delay, bandwidth) for rep in reps]
    per_rep = {k: [f[k] for f in found] for k in _NAMES}
    med = {k: float(np.median(v)) for k, v in per_rep.items()}
    spread = {k: {"median": med[k], "q1": float(np.quantile(v, 0.25)), "q3": float(np.quantile(v, 0.75)),
                  "min": float(np.min(v)), "max": float(np.max(v))} for k, v in per_rep.items()}
    problems = []
    for k in _NAMES:
        if not math.isfinite(med[k]):
            problems.append(f"{k} = {med[k]} is not finite")
        elif med[k] < 0 or (med[k] == 0 and k != "L"):
            problems.append(f"{k} = {med[k]:.4g} us is not positive")
    limits = {"L": 1e6, "o": 1e6, "g": 1e6, "G": 1.0}  # a second; 1 us per byte = 1 MB/s
    for k, limit in limits.items():
        if math.isfinite(med[k]) and med[k] > limit:
            problems.append(f"{k} = {med[k]:.4g} us is implausible (more than {limit:g} us"
                            f"{' per byte' if k == 'G' else ''})")
    if problems:
        raise CalibrationError("calibration failed: " + "; ".join(problems) + "\n" + _raw_table(raw) +
                               "\n  per repetition: " + "; ".join(
                                   f"{k} " + ", ".join(f"{v:.3g}" for v in per_rep[k]) for k in _NAMES) +
                               "\n  hint: run again on an idle machine, or with more --reps")
    capped = sum(v == 0.0 for v in per_rep["L"])
    notes = [f"in {capped} of {len(reps)} repetitions the overheads measured exceed the one-way time "
             "(RTT/2 < 2o, the receiver's polling hides its part): o taken as RTT/4 and L as 0"] if capped else []
    summary = {"library": raw.get("library", ""), "probe": raw.get("probe", "mpi4py"), "sizes": sizes,
               "train": train, "delay_s": delay, "repetitions": len(reps), "table": _raw_table(raw).splitlines(),
               "notes": notes, "G_from": bandwidth}
    return Calibration(LogGP(med["L"], med["o"], med["g"], med["G"], "us"), spread, per_rep, summary)


def mpiexec_for(mpicc: str) -> str:
    """The launcher of the MPI whose compiler wrapper is ``mpicc`` (``mpicc.openmpi`` -> ``mpiexec.openmpi``,
    ``mpicc`` -> the ``mpiexec`` beside it)."""
    from perfcompose.loggp.trace.tracer import sibling

    found = shutil.which(mpicc)
    if found is None:
        raise InputError(f"--mpicc {mpicc}: no such compiler wrapper", hint=_INSTALL)
    path = Path(found)
    near = sibling(path, [path.name.replace("mpicc", "mpiexec", 1), path.name.replace("mpicc", "mpirun", 1)])
    if near is None:
        raise InputError(f"no mpiexec beside the compiler wrapper {found}", hint="name it with --mpiexec")
    return near


def run_mpi(module: str, args: list[str], out: Path, *, ranks: int = 2, mpiexec: str | None = None,
            timeout: float = 600, progress: Callable[[int, int], None] | None = None,
            what: str = "MPI run") -> dict[str, Any]:
    """Run ``python -m module args`` on ``ranks`` local MPI ranks and return the JSON it writes to
    ``out`` (``mpiexec``: by default the one next to this Python, where the MPICH wheel installs one, else on PATH);
    its standard output may carry ``{"progress": k, "of": n}`` and ``{"error": ...}`` lines."""
    from perfcompose.loggp.trace.tracer import beside_python

    if importlib.util.find_spec("mpi4py") is None:
        raise CalibrationError("mpi4py is not installed; install it with pip install 'perfcompose[mpi]' "
                               "(mpi4py and the MPICH wheel)")
    launcher = mpiexec or beside_python("mpiexec")
    if launcher is None:
        raise CalibrationError("no mpiexec found next to this Python or on PATH; install MPI with "
                               "pip install 'perfcompose[mpi]' (mpi4py and the MPICH wheel)")
    return run_ranks([launcher, "-n", str(ranks), sys.executable, "-m", module, *args], out, timeout=timeout,
                     progress=progress, what=what)


def run_ranks(cmd: list[str], out: Path, *, timeout: float = 600,
              progress: Callable[[int, int], None] | None = None, what: str = "MPI run") -> dict[str, Any]:
    """Run the MPI command ``cmd`` and return the JSON it writes to ``out``; its standard output
    may carry ``{"progress": k, "of": n}`` and ``{"error": ...}`` lines."""
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as exc:
        raise CalibrationError(f"cannot run {cmd[0]}: {exc.strerror}") from None
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(msg, dict):
                continue
            if "error" in msg:
                raise CalibrationError(f"the {what} failed: {msg['error']}")
            if progress is not None and "progress" in msg:
                progress(int(msg["progress"]), int(msg["of"]))
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise CalibrationError(f"the {what} did not finish within {timeout:g} s") from None
    finally:
        if proc.poll() is None:
            proc.kill()
    err = proc.stderr.read() if proc.stderr else ""
    if proc.returncode != 0 or not out.exists():
        raise CalibrationError(f"the {what} failed (exit status {proc.returncode}): {err.strip()[-1500:]}")
    return json.loads(out.read_text())


def run_probe(out: Path, o: CalibrationOptions, *, timeout: float = 600,
              progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Run the probe on two local ranks and return its raw figures: with ``o.mpicc``, ``probe.c`` built by that
    wrapper (once per wrapper, MPI and source, kept beside the tracer in the cache folder) and run by its MPI's
    mpiexec (or ``o.mpiexec``), its figures marked ``"probe": "C"``; else :mod:`.mpi_probe` on mpi4py."""
    args = ["--out", str(out), "--reps", str(o.reps), "--train", str(o.train), "--sizes", o.sizes]
    if o.mpicc is None:
        return run_mpi("perfcompose.loggp.calibrate.mpi_probe", args, out, mpiexec=o.mpiexec, timeout=timeout,
                       progress=progress, what="MPI probe")
    from perfcompose.loggp.trace.tracer import build_cached

    exe = build_cached(o.mpicc, [files("perfcompose.loggp.calibrate").joinpath("probe.c")], "probe-{key}", ["-O2"],
                       "the calibration probe", CalibrationError, f"--mpicc {o.mpicc}: cannot run it ({{reason}})",
                       _INSTALL)
    launcher = o.mpiexec or mpiexec_for(o.mpicc)
    return run_ranks([launcher, "-n", "2", str(exe), *args], out, timeout=timeout, progress=progress,
                     what=f"C probe ({Path(o.mpicc).name}, {Path(launcher).name})")


def calibrate(out: Path, o: CalibrationOptions = CalibrationOptions(), *, raw_out: Path | None = None,
              progress: Callable[[int, int], None] | None = None) -> Calibration:
    """Measure, derive, check and write the parameter file ``out`` (microseconds). With ``o.mpicc``
    the probe is ``probe.c`` (:func:`run_probe`); else :mod:`.mpi_probe` on mpi4py."""
    with tempfile.TemporaryDirectory() as tmp:
        raw = run_probe(Path(tmp) / "raw.json", o, progress=progress)
    if raw_out is not None:
        Path(raw_out).write_text(json.dumps(raw))
    cal = derive_parameters(raw, o.bandwidth)
    write_params(out, cal.params, {"spread": cal.spread, "per_repetition": cal.per_rep, "raw": cal.raw_summary,
                                   "method": "Netgauge-style: ping-pong RTT, message trains, delayed train; medians "
                                             "over repetitions (perfcompose.loggp.calibrate.parameters)"})
    return cal
