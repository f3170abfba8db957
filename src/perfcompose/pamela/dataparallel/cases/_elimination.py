"""GAUSS's elimination without pivoting, shared by its two column layouts: the pivot column is
broadcast and every processor updates its columns right of the pivot."""
import numpy as np


def eliminate(dp, A, N):
    for k in range(N - 1):
        col = dp.bcast(A, k)
        l = col[k + 1:] / col[k]
        s = dp.after(A, 1, k)
        A[k + 1:, s:] -= np.outer(l, A[k, s:])
