"""A small mpi4py program to trace: a 1-D heat stencil, each rank holding N points, exchanging one
halo value with each neighbour per step and summing the residual every 10 steps.

    perfcompose loggp trace -o run --check --params examples/loggp/params_local.json -- \
        mpiexec -n 2 python examples/loggp/halo.py [N] [STEPS]
"""
import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
n = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 100
u = np.random.default_rng(rank).random(n + 2)
left, right = (rank - 1) % size, (rank + 1) % size
for step in range(steps):
    comm.Sendrecv(u[1:2], left, 0, u[n + 1:n + 2], right, 0)
    comm.Sendrecv(u[n:n + 1], right, 1, u[0:1], left, 1)
    new = u[1:-1] + 0.25 * (u[:-2] - 2 * u[1:-1] + u[2:])
    if step % 10 == 0:
        residual = comm.allreduce(float(np.abs(new - u[1:-1]).sum()))
    u[1:-1] = new
if rank == 0:
    print(f"residual {residual:.6g}")
