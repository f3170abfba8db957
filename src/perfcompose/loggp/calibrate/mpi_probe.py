"""The measurements behind ``perfcompose loggp calibrate``, run on two MPI ranks:

    mpiexec -n 2 python -m perfcompose.loggp.calibrate.mpi_probe --out RAW.json

Per repetition: ping-pong round trips per size; message trains of 1 and N messages per size (the
sender sends back to back, the receiver answers the last with a 1-byte ack); a train of N 1-byte
messages spaced by a delay d (Netgauge's PRTT(N, d, 1), for the overhead) and the same train's
loop without its sends (the spins as they really last); and, as
cross-checks, the time of a send call when the receiver keeps up and of a receive call for a
message that has already arrived. Every figure is a median over iterations timed one by one, so that a
descheduled rank spoils one iteration, not the figure. Rank 0 prints one progress line per repetition and
writes every raw figure, in seconds, to the output file. Derivation: :mod:`.parameters`.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from mpi4py import MPI


def _spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def _iterations(size: int, per_message: float = 2e-6, per_byte: float = 3e-10, budget: float = 2e-3) -> int:
    return int(min(400, max(8, budget / (per_message + size * per_byte))))


def _timed(comm: Any, iters: int, body: Callable[[], None]) -> np.ndarray:
    """Seconds of each of ``iters`` runs of ``body``, after a barrier."""
    times = np.empty(iters)
    comm.Barrier()
    for k in range(iters):
        t0 = time.perf_counter()
        body()
        times[k] = time.perf_counter() - t0
    return times


def _round_trips(comm: Any, rank: int, bufs: dict[int, np.ndarray]) -> dict[str, float]:
    """Ping-pong round trip per size (median, the first three runs left out)."""
    peer, out = 1 - rank, {}
    for s, buf in bufs.items():
        def ping(buf: np.ndarray = buf) -> None:
            if rank == 0:
                comm.Send(buf, peer, tag=1)
                comm.Recv(buf, peer, tag=1)
            else:
                comm.Recv(buf, peer, tag=1)
                comm.Send(buf, peer, tag=1)
        out[str(s)] = float(np.median(_timed(comm, _iterations(s) + 3, ping)[3:]))
    return out


def _train(comm: Any, rank: int, buf: np.ndarray, n: int, tag: int, delay: float = 0.0) -> Callable[[], None]:
    """n back-to-back messages (spaced by ``delay``) closed by an ack."""
    peer, ack = 1 - rank, np.zeros(1, dtype=np.uint8)

    def run() -> None:
        if rank == 0:
            for i in range(n):
                if delay and i:
                    _spin(delay)
                comm.Send(buf, peer, tag=tag)
            comm.Recv(ack, peer, tag=tag + 1)
        else:
            for _ in range(n):
                comm.Recv(buf, peer, tag=tag)
            comm.Send(ack, peer, tag=tag + 1)
    return run


def _dry_train(rank: int, n: int, delay: float) -> Callable[[], None]:
    """Rank 0's loop of a delayed train without its sends: the n - 1 spins as Python runs them
    (each overshoots d by a clock read and the loop's own work), to subtract instead of (n - 1) d."""
    def run() -> None:
        if rank == 0:
            for i in range(n):
                if i:
                    _spin(delay)
    return run


def _overheads(comm: Any, rank: int, samples: int) -> tuple[list[float] | None, list[float]]:
    """Cross-checks: the time of a 1-byte send call, spaced so that the receiver keeps up (rank 0's),
    and of a receive call for a message that has already arrived (rank 1's, sent to both)."""
    peer, small, ack = 1 - rank, np.zeros(1, dtype=np.uint8), np.zeros(1, dtype=np.uint8)
    comm.Barrier()
    times = np.empty(samples)
    for k in range(samples):
        if rank == 0:
            _spin(20e-6)
            t0 = time.perf_counter()
            comm.Send(small, peer, tag=4)
            times[k] = time.perf_counter() - t0
        else:
            comm.Recv(small, peer, tag=4)
    send_overhead = times.tolist() if rank == 0 else None
    comm.Barrier()
    for k in range(samples):
        if rank == 0:
            comm.Send(small, peer, tag=5)
            comm.Recv(ack, peer, tag=6)
        else:
            _spin(30e-6)
            t0 = time.perf_counter()
            comm.Recv(small, peer, tag=5)
            times[k] = time.perf_counter() - t0
            comm.Send(ack, peer, tag=6)
    return send_overhead, comm.bcast(times.tolist() if rank == 1 else None, root=1)


def _repetition(comm: Any, rank: int, bufs: dict[int, np.ndarray], args: argparse.Namespace) -> dict[str, Any]:
    """One repetition of every measurement."""
    record: dict[str, Any] = {"rtt": _round_trips(comm, rank, bufs), "train1": {}, "trainN": {}}
    for s, buf in bufs.items():  # trains of 1 and N back-to-back messages, closed by an ack
        for n, key in ((1, "train1"), (args.train, "trainN")):
            iters = max(9, _iterations(s) // n)
            record[key][str(s)] = float(np.median(_timed(comm, iters + 2, _train(comm, rank, buf, n, 2))[2:]))
    # Netgauge's PRTT(N, d, 1): N 1-byte messages spaced by a delay d the receiver keeps up
    # with, closed by an ack; PRTT(N, d, 1) - PRTT(1, 0, 1) = (N - 1)(d + o)
    small = np.zeros(1, dtype=np.uint8)
    record["delayed"] = float(np.median(_timed(comm, 33, _train(comm, rank, small, args.train, 7, args.delay))[2:]))
    record["delayed_dry"] = float(np.median(_timed(comm, 33, _dry_train(rank, args.train, args.delay))[2:]))
    record["send_overhead"], record["recv_overhead"] = _overheads(comm, rank, args.samples)
    return record


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--sizes", required=True)
    ap.add_argument("--train", type=int, default=16)
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--delay", type=float, default=10e-6)
    args = ap.parse_args(argv)
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    if comm.Get_size() != 2:
        if rank == 0:
            print(json.dumps({"error": f"needs exactly 2 ranks, got {comm.Get_size()}"}), flush=True)
        return 2
    sizes = [int(s) for s in args.sizes.split(",")]
    bufs = {s: np.zeros(s, dtype=np.uint8) for s in sizes}
    reps = []
    for rep in range(args.reps):
        record = _repetition(comm, rank, bufs, args)
        if rank == 0:
            reps.append(record)
            print(json.dumps({"progress": rep + 1, "of": args.reps}), flush=True)
    if rank == 0:
        out = {"format": "perfcompose-mpi-probe/1", "sizes": sizes, "train": args.train, "delay": args.delay,
               "library": MPI.Get_library_version().strip().splitlines()[0],
               "clock_resolution": time.get_clock_info("perf_counter").resolution, "reps": reps}
        with open(args.out, "w") as f:
            json.dump(out, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
