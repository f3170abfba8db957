"""MATMUL as in van Gemund's paper: C = A B with A in row blocks (i axis), B and C in column
blocks (j axis); row i of A is broadcast and each processor computes its part of row i of C."""
from perfcompose.pamela.dataparallel import block


def program(dp, N):
    A = dp.array((N, N), block(0))
    B = dp.array((N, N), block(1))
    C = dp.array((N, N), block(1))
    for i in range(N):
        row = dp.bcast(A, i)
        C[i, :] = row @ B
