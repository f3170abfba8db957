"""The blocked Gaussian elimination of section 5 run for real on MPI ranks (mpi4py), to measure
what :mod:`.gauss` predicts:

    mpiexec -n P python -m perfcompose.loggp.calibrate.gauss_mpi --n 960 --blocks 20,40 --out TIMES.json

It performs the same steps as :func:`~perfcompose.loggp.gauss.gauss_program`: at step t every
rank applies Op1-Op4 (the same compiled operations that are timed for the prediction) to its
active blocks (i, j) of wave k, t = i + j + k, in the same order, then sends each block's
outgoing 8 b^2-byte block right and down to the owning rank (MPI_Isend, MPI_Irecv, one
MPI_Waitall per step; a transfer to the same rank is local). What travels is what the
elimination needs: the pivot's L^-1 along its row and U^-1 down its column, each multiplier
L_ik = B U_kk^-1 along row i and each pivot-row block U_kj = L_kk^-1 B down column j, so the
matrix really is reduced (the result is checked: the eliminated blocks are zero and the
diagonal finite). Per block size and layout the time from a barrier to the last rank's end is
taken ``--reps`` times; rank 0 writes the medians, and the critical rank's computation time, in
microseconds.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np
from mpi4py import MPI

from perfcompose.loggp.gauss import active_blocks, op1, op2, op3, op4, owners


def _run_once(comm, n: int, b: int, layout: str) -> tuple[float, float, bool]:  # noqa: ANN001
    rank, P = comm.Get_rank(), comm.Get_size()
    nb = n // b
    owner = owners(nb, P, layout)
    rng = np.random.default_rng(1)
    mine = {(i, j): rng.random((b, b)) + (n * np.eye(b) if i == j else 0.0)
            for i in range(nb) for j in range(nb) if owner[i, j] == rank}
    t_all, i_all, j_all, k_all = active_blocks(nb)
    bounds = np.searchsorted(t_all, np.arange(t_all[-1] + 2))
    inbox: dict[tuple[int, int, int], np.ndarray] = {}  # (i, j, 0 from the left / 1 from above)
    tmp = np.empty((b, b))
    comp = 0.0
    comm.Barrier()
    start = MPI.Wtime()
    for s in range(t_all[-1] + 1):
        lo, hi = bounds[s], bounds[s + 1]
        out: list[tuple[int, int, int, np.ndarray]] = []  # (i, j, direction, block) to deliver
        c0 = time.perf_counter()
        for i, j, k in zip(i_all[lo:hi].tolist(), j_all[lo:hi].tolist(), k_all[lo:hi].tolist()):
            if owner[i, j] != rank:
                continue
            a = mine[(i, j)]
            if i == k and j == k:  # Op1
                lu, l_inv, u_inv = np.empty((b, b)), np.empty((b, b)), np.empty((b, b))
                op1(a, lu, l_inv, u_inv)
                mine[(i, j)], right, down = lu, l_inv, u_inv
            elif j == k:  # Op2: the multiplier
                u_inv, mult = inbox.pop((i, j, 1)), np.empty((b, b))
                op2(a, u_inv, mult)
                right, down = mult, u_inv
            elif i == k:  # Op3: the pivot row block
                l_inv, u_kj = inbox.pop((i, j, 0)), np.empty((b, b))
                op3(l_inv, a, u_kj)
                mine[(i, j)], right, down = u_kj, l_inv, u_kj
            else:  # Op4: the update, passing on the multiplier (left) and the pivot row block (above)
                right, down = inbox.pop((i, j, 0)), inbox.pop((i, j, 1))
                op4(a, right, down, tmp)
            if j + 1 < nb:
                out.append((i, j + 1, 0, right))
            if i + 1 < nb:
                out.append((i + 1, j, 1, down))
        comp += time.perf_counter() - c0
        requests = []
        for i, j, d, block in out:
            if owner[i, j] == rank:
                inbox[(i, j, d)] = block
            else:
                requests.append(comm.Isend(np.ascontiguousarray(block), dest=int(owner[i, j]),
                                           tag=(i * nb + j) * 2 + d))
        # the blocks other ranks send to this one at this step
        incoming = []
        for i, j, _k in zip(i_all[lo:hi].tolist(), j_all[lo:hi].tolist(), k_all[lo:hi].tolist()):
            src = int(owner[i, j])
            if src == rank:
                continue
            for ti, tj, d in ((i, j + 1, 0), (i + 1, j, 1)):
                if ti < nb and tj < nb and owner[ti, tj] == rank:
                    buf = np.empty((b, b))
                    incoming.append(((ti, tj, d), buf))
                    requests.append(comm.Irecv(buf, source=src, tag=(ti * nb + tj) * 2 + d))
        MPI.Request.Waitall(requests)
        for key, buf in incoming:
            inbox[key] = buf
    end = MPI.Wtime()
    ok = all(np.all(np.isfinite(blk)) for blk in mine.values()) and all(
        not np.any(blk) for (i, j), blk in mine.items() if i > j)
    return end - start, comp, ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=960)
    ap.add_argument("--blocks", required=True)
    ap.add_argument("--layouts", default="row-cyclic,diagonal")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    rows = []
    jobs = [(int(b), lay) for b in args.blocks.split(",") for lay in args.layouts.split(",")]
    _run_once(comm, 2 * min(b for b, _ in jobs), min(b for b, _ in jobs), jobs[0][1])  # compile, warm up
    for done, (b, layout) in enumerate(jobs):
        totals, comps, good = [], [], True
        for _ in range(args.reps):
            walls = comm.gather(_run_once(comm, args.n, b, layout), root=0)  # (wall, computation, ok) per rank
            if rank == 0:
                assert walls is not None
                crit = max(range(len(walls)), key=lambda r: walls[r][0])
                totals.append(walls[crit][0] * 1e6)
                comps.append(walls[crit][1] * 1e6)
                good = good and all(w[2] for w in walls)
        if rank == 0:
            rows.append({"block": b, "layout": layout, "total": float(np.median(totals)),
                         "computation": float(np.median(comps)), "runs": totals, "eliminated": good})
            print(json.dumps({"progress": done + 1, "of": len(jobs)}), flush=True)
    if rank == 0:
        with open(args.out, "w") as fh:
            json.dump({"n": args.n, "ranks": comm.Get_size(), "library": MPI.Get_library_version().splitlines()[0],
                       "rows": rows}, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
