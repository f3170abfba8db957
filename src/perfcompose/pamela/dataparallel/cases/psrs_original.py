"""PSRS (parallel sorting by regular sampling), original data mapping: X in blocks, but the
vectors that route the elements are replicated, so every processor receives all of X and picks
its part (O(N P) communication). Its part is P sorted runs (one from each processor's block), so
the stable sort that finishes it merges them: the annotation gives it the cost of a merge."""
import numpy as np

from perfcompose.pamela.dataparallel import block
from perfcompose.pamela.dataparallel.cases._sampling import regular_pivots


def program(dp, N):
    X = dp.array((N,), block(0))
    pivots = regular_pivots(dp, X)
    Xall = dp.allgather(X)
    lo = -np.inf if dp.p == 0 else pivots[dp.p - 1]
    hi = np.inf if dp.p == dp.P - 1 else pivots[dp.p]
    Y = Xall[(Xall >= lo) & (Xall < hi)]  # pamela: size = N / P
    Y = np.sort(Y, kind="stable")  # pamela: cost = t_call + t_merge * (N / P) * log2(P + 1)
