"""PSRS (parallel sorting by regular sampling), improved data mapping: the routing index is
partitioned too, so each processor sends every other only the elements that go there."""
import numpy as np

from perfcompose.pamela.dataparallel import block


def program(dp, N):
    X = dp.array((N,), block(0))
    X[:] = np.sort(X)
    samples = X[:: X.shape[0] // dp.P][: dp.P]
    gathered = dp.allgather(samples)
    pivots = np.sort(gathered)[dp.P:: dp.P]
    cuts = np.searchsorted(X, pivots)
    parts = np.split(X, cuts)
    runs = dp.alltoall(parts)  # pamela: size = N / P
    Y = dp.merge(runs)  # pamela: size = N / P
