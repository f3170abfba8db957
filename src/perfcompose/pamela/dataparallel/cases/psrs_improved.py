"""PSRS (parallel sorting by regular sampling), improved data mapping: the routing index is
partitioned too, so each processor sends every other only the elements that go there."""
import numpy as np

from perfcompose.pamela.dataparallel import block
from perfcompose.pamela.dataparallel.cases._sampling import regular_pivots


def program(dp, N):
    X = dp.array((N,), block(0))
    pivots = regular_pivots(dp, X)
    cuts = np.searchsorted(X, pivots)
    parts = np.split(X, cuts)
    runs = dp.alltoall(parts)  # pamela: size = N / P
    Y = dp.merge(runs)  # pamela: size = N / P
