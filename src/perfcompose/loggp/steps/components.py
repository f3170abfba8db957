"""Which processors the worst case (section 4.2) may force to send: the members of the strongly connected components of
the waiting graph (an edge p -> q for every message from a processor p that has not sent yet to one q that has not sent
yet) that no other waiting component feeds and that have an edge inside (a cycle of processors waiting on each other).

:func:`cycle_candidates` finds them afresh with SciPy: the reference. The compiled worst case (``worst_step`` in
``_cstep.c``) keeps the components from one forced send to the next instead: when processors have sent, only the
components that lost members can split; a search forward and backward from one remaining member, each stopped once it
has reached them all, shows that most stay whole, and only a component that did split is taken apart (Tarjan's
algorithm, on it alone). Each component counts the edges that feed it from other waiting components.
"""
from __future__ import annotations

import numpy as np

from perfcompose.loggp.steps.program import CommStep

__all__ = ["cycle_candidates"]


def cycle_candidates(step: CommStep, sent: np.ndarray) -> list[int]:
    """The processors that may be forced to break a deadlock, ascending, given which ones have sent."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    unsent = ~np.asarray(sent, dtype=bool)
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
