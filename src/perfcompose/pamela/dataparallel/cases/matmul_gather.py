"""MATMUL, the other design: A, B and C in row blocks (i axis); B is gathered whole on every
processor once and each processor multiplies its rows of A by it in one call."""
from perfcompose.pamela.dataparallel import block


def program(dp, N):
    A = dp.array((N, N), block(0))
    B = dp.array((N, N), block(0))
    C = dp.array((N, N), block(0))
    Bw = dp.allgather(B)
    C[:, :] = A @ Bw
