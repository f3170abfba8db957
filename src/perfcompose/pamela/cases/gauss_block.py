"""GAUSS: elimination without pivoting on a diagonally dominant matrix whose columns (j axis) are
spread over the processors block-wise; the pivot column is broadcast and every processor updates
its columns right of the pivot."""
import numpy as np

from perfcompose.pamela.dataparallel import block


def program(dp, N):
    A = dp.array((N, N), block(1), fill="dominant")
    for k in range(N - 1):
        col = dp.bcast(A, k)
        l = col[k + 1:] / col[k]
        s = dp.after(A, 1, k)
        A[k + 1:, s:] -= np.outer(l, A[k, s:])
