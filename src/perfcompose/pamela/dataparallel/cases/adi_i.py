"""ADI, horizontal phase, on the i axis: rows in blocks, so the recurrence along j stays on one
processor and runs as column operations over the local rows."""
from perfcompose.pamela.dataparallel import block


def program(dp, N):
    X = dp.array((N, N), block(0))
    A = dp.array((N, N), block(0))
    for j in range(1, N):
        X[:, j] -= A[:, j] * X[:, j - 1]
