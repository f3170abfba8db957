"""The measurements behind ``perfcompose loggp calibrate``, run on two MPI ranks:

    mpiexec -n 2 python -m perfcompose.loggp.mpi_probe --out RAW.json

Per repetition: ping-pong round trips per size; message trains of 1 and N messages per size (the
sender sends back to back, the receiver answers the last with a 1-byte ack); a train of N 1-byte
messages spaced by a delay d (Netgauge's PRTT(N, d, 1), for the overhead); and, as
cross-checks, the time of a send call when the receiver keeps up and of a receive call for a
message that has already arrived. Every figure is a median over iterations timed one by one, so that a
descheduled rank spoils one iteration, not the figure. Rank 0 prints one progress line per repetition and
writes every raw figure, in seconds, to the output file. Derivation: :mod:`.calibrate`.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np


def _spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def _iterations(size: int, per_message: float = 2e-6, per_byte: float = 3e-10, budget: float = 2e-3) -> int:
    return int(min(400, max(8, budget / (per_message + size * per_byte))))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--sizes", default="1,64,1024,4096,16384,65536,262144,1048576")
    ap.add_argument("--train", type=int, default=16)
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--delay", type=float, default=10e-6)
    args = ap.parse_args(argv)
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    if comm.Get_size() != 2:
        if rank == 0:
            print(json.dumps({"error": f"needs exactly 2 ranks, got {comm.Get_size()}"}), flush=True)
        return 2
    sizes = [int(s) for s in args.sizes.split(",")]
    bufs = {s: np.zeros(s, dtype=np.uint8) for s in sizes}
    ack = np.zeros(1, dtype=np.uint8)
    small = np.zeros(1, dtype=np.uint8)
    peer = 1 - rank
    reps = []
    for rep in range(args.reps):
        record: dict[str, object] = {"rtt": {}, "train1": {}, "trainN": {}}
        for s in sizes:  # ping-pong round trips
            buf, iters = bufs[s], _iterations(s)
            times = np.empty(iters + 3)
            comm.Barrier()
            for k in range(iters + 3):
                t0 = time.perf_counter()
                if rank == 0:
                    comm.Send(buf, peer, tag=1)
                    comm.Recv(buf, peer, tag=1)
                else:
                    comm.Recv(buf, peer, tag=1)
                    comm.Send(buf, peer, tag=1)
                times[k] = time.perf_counter() - t0
            record["rtt"][str(s)] = float(np.median(times[3:]))  # type: ignore[index]
        for s in sizes:  # trains of 1 and N back-to-back messages, closed by an ack
            for n, key in ((1, "train1"), (args.train, "trainN")):
                buf, iters = bufs[s], max(9, _iterations(s) // n)
                times = np.empty(iters + 2)
                comm.Barrier()
                for k in range(iters + 2):
                    t0 = time.perf_counter()
                    if rank == 0:
                        for _ in range(n):
                            comm.Send(buf, peer, tag=2)
                        comm.Recv(ack, peer, tag=3)
                    else:
                        for _ in range(n):
                            comm.Recv(buf, peer, tag=2)
                        comm.Send(ack, peer, tag=3)
                    times[k] = time.perf_counter() - t0
                record[key][str(s)] = float(np.median(times[2:]))  # type: ignore[index]
        # Netgauge's PRTT(N, d, 1): N 1-byte messages spaced by a delay d the receiver keeps up
        # with, closed by an ack; PRTT(N, d, 1) - PRTT(1, 0, 1) = (N - 1)(d + o)
        n, iters = args.train, 31
        times = np.empty(iters + 2)
        comm.Barrier()
        for k in range(iters + 2):
            t0 = time.perf_counter()
            if rank == 0:
                comm.Send(small, peer, tag=7)
                for _ in range(n - 1):
                    _spin(args.delay)
                    comm.Send(small, peer, tag=7)
                comm.Recv(ack, peer, tag=8)
            else:
                for _ in range(n):
                    comm.Recv(small, peer, tag=7)
                comm.Send(ack, peer, tag=8)
            times[k] = time.perf_counter() - t0
        record["delayed"] = float(np.median(times[2:]))
        # cross-checks: the time of a 1-byte send call, spaced so that the receiver keeps up
        comm.Barrier()
        samples = np.empty(args.samples)
        for k in range(args.samples):
            if rank == 0:
                _spin(20e-6)
                t0 = time.perf_counter()
                comm.Send(small, peer, tag=4)
                samples[k] = time.perf_counter() - t0
            else:
                comm.Recv(small, peer, tag=4)
        send_overhead = samples.tolist() if rank == 0 else None
        # receiver overhead: a receive call for a message that has already arrived
        comm.Barrier()
        for k in range(args.samples):
            if rank == 0:
                comm.Send(small, peer, tag=5)
                comm.Recv(ack, peer, tag=6)
            else:
                _spin(30e-6)
                t0 = time.perf_counter()
                comm.Recv(small, peer, tag=5)
                samples[k] = time.perf_counter() - t0
                comm.Send(ack, peer, tag=6)
        recv_overhead = comm.bcast(samples.tolist() if rank == 1 else None, root=1)
        if rank == 0:
            record["send_overhead"] = send_overhead
            record["recv_overhead"] = recv_overhead
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
