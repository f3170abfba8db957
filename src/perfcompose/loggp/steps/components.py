"""Which processors the worst case (section 4.2) may force to send: the members of the strongly
connected components of the waiting graph (an edge p -> q for every message from a processor p
that has not sent yet to one q that has not sent yet) that no other waiting component feeds and
that have an edge inside (a cycle of processors waiting on each other).

:class:`WaitingComponents` keeps the components from one forced send to the next instead of
recomputing them: when processors have sent, only the components that lost members can split; a
search forward and backward from one remaining member, each stopped once it has reached them
all, shows that most stay whole (on a dense pattern it reaches every member after a few of their
edges), and only a component that did split is taken apart (Tarjan's algorithm, on it alone).
Each component counts the edges that feed it from other waiting components, so the candidates
are read off in one pass over the processors.
"""
from __future__ import annotations

import numpy as np

from perfcompose.loggp.kernels.backend import compiled_module
from perfcompose.loggp.steps.program import CommStep, stable_order

__all__ = ["WaitingComponents", "cycle_candidates"]


def _csr(keys: np.ndarray, values: np.ndarray, P: int) -> tuple[np.ndarray, np.ndarray]:
    """``values`` grouped by ``keys`` (in their order within a group) as CSR offsets and entries."""
    ptr = np.zeros(P + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys, minlength=P), out=ptr[1:])
    return ptr, values[stable_order(keys, P)].astype(np.int32)


class WaitingComponents:
    """The waiting graph's components, kept up to date from one forced send to the next (by the
    compiled extension: an ImportError where it is not built)."""

    def __init__(self, step: CommStep) -> None:
        P = self.P = step.P
        self.ptr, self.adj = _csr(step.src, step.dst, P)  # p's destinations
        self.rptr, self.radj = _csr(step.dst, step.src, P)  # p's sources
        self.label = np.full(P, -1, np.int64)
        self.fed = np.zeros(4 * P + 2, np.int64)  # splits create at most 4P labels
        self.state = np.zeros(2, np.int64)
        self.first = True
        i64 = (np.zeros(P, np.int64) for _ in range(8))
        self.mark, self.queue, self.members, self.nxt, self.index, self.low, self.cs_node, self.cs_edge = i64
        self.stack = np.zeros(P, np.int64)
        self.onstack = np.zeros(P, np.bool_)
        self.inner = np.zeros(P, np.bool_)
        self.root = np.full(4 * P + 2, -1, np.int64)
        # scratch space of every refresh, per label
        self.affected, self.broken = np.zeros(4 * P + 2, np.bool_), np.zeros(4 * P + 2, np.bool_)
        self.head, self.size = np.full(4 * P + 2, -1, np.int64), np.zeros(4 * P + 2, np.int64)
        self.alist = np.empty(P + 1, np.int64)
        module = compiled_module()
        if module is None:
            raise ImportError("the compiled extension perfcompose.loggp.kernels._cstep is not built")
        self.refresh = module.refresh

    def candidates(self, sent: np.ndarray) -> np.ndarray:
        """The processors that may be forced, ascending, given which ones have sent (a set that
        only grows from one call to the next)."""
        ok = np.zeros(self.P, np.bool_)
        self.refresh(self.P, np.ascontiguousarray(sent, dtype=np.bool_), self.ptr, self.adj, self.rptr, self.radj,
                 self.label, self.fed, self.state, self.first, self.mark, self.queue, self.members, self.nxt,
                 self.index, self.low, self.onstack, self.stack, self.cs_node, self.cs_edge, self.inner, self.root, ok,
                 self.affected, self.broken, self.alist, self.head, self.size)
        self.first = False
        return np.flatnonzero(ok).astype(np.int32)


def cycle_candidates(step: CommStep, sent: np.ndarray) -> list[int]:
    """The processors that may be forced to break a deadlock: members of the strongly connected
    components of the not-yet-sent processors that no other waiting component feeds (and that
    have an edge inside, so that they wait on each other)."""
    if compiled_module() is None:
        return reference_candidates(step, sent)
    return WaitingComponents(step).candidates(sent).tolist()


def reference_candidates(step: CommStep, sent: np.ndarray) -> list[int]:
    """The same set from SciPy's strongly connected components (the reference of the kernel, and
    what the worst case uses where it is not built)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    unsent = ~sent
    m = unsent[step.src] & unsent[step.dst]
    src, dst = step.src[m], step.dst[m]
    graph = csr_matrix((np.ones(src.shape[0]), (src, dst)), shape=(step.P, step.P))
    _, label = connected_components(graph, directed=True, connection="strong")
    fed = np.zeros(label.max() + 1, dtype=bool)
    cross = label[src] != label[dst]
    fed[label[dst[cross]]] = True
    has_inner_edge = np.zeros(label.max() + 1, dtype=bool)
    has_inner_edge[label[src[~cross]]] = True
    ok = unsent & ~fed[label] & has_inner_edge[label]
    return [int(p) for p in np.flatnonzero(ok)]
