"""ADI, horizontal phase, on the j axis: columns in blocks, so the recurrence along j crosses
the processors; the rows are brought together (all-to-all) for the sweep and sent back."""
from perfcompose.pamela.dataparallel import block


def program(dp, N):
    X = dp.array((N, N), block(1))
    A = dp.array((N, N), block(1))
    Xr = dp.redistribute(X, 0)
    Ar = dp.redistribute(A, 0)
    for j in range(1, N):
        Xr[:, j] -= Ar[:, j] * Xr[:, j - 1]
    X = dp.redistribute(Xr, 1)
