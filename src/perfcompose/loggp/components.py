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
from numba import njit

from perfcompose.loggp.program import CommStep, stable_order

__all__ = ["WaitingComponents", "cycle_candidates"]


@njit(cache=True)
def _reaches_all(start, n, c, ptr, adj, label, mark, stamp, queue, inner):  # pragma: no cover - compiled
    """Whether a search from ``start`` along the edges (ptr, adj) inside component c reaches all
    of its ``n`` members; stops as soon as it has. ``inner[v]``: v is an inner node of the search
    tree (the tree stays whole when only its leaves are removed)."""
    mark[start] = stamp
    queue[0] = start
    head, tail, seen = 0, 1, 1
    while head < tail and seen < n:
        v = queue[head]
        head += 1
        for e in range(ptr[v], ptr[v + 1]):
            w = adj[e]
            if label[w] == c and mark[w] != stamp:
                inner[v] = True
                mark[w] = stamp
                queue[tail] = w
                tail += 1
                seen += 1
                if seen == n:
                    break
    return seen == n


@njit(cache=True, inline="always")
def _enter(v, idx, index, low, stack, sp, onstack):  # pragma: no cover - compiled
    """Tarjan's first visit of v: numbered ``idx`` and pushed; returns the new stack size."""
    index[v] = idx
    low[v] = idx
    stack[sp] = v
    onstack[v] = True
    return sp + 1


@njit(cache=True)
def _split(members, n, c, ptr, adj, label, next_id, index, low, onstack, stack, cs_node, cs_edge):  # pragma: no cover
    """Tarjan's strongly connected components (iterative) of component c's ``n`` members; each
    gets a new label from ``next_id``; returns the next free label."""
    for i in range(n):
        index[members[i]] = -1
    sp = 0
    idx = 0
    for r in range(n):
        root = members[r]
        if index[root] >= 0:
            continue
        top = 0
        cs_node[0] = root
        cs_edge[0] = ptr[root]
        sp = _enter(root, idx, index, low, stack, sp, onstack)
        idx += 1
        while top >= 0:
            v = cs_node[top]
            e = cs_edge[top]
            if e < ptr[v + 1]:
                cs_edge[top] = e + 1
                w = adj[e]
                if label[w] != c:
                    continue
                if index[w] < 0:
                    sp = _enter(w, idx, index, low, stack, sp, onstack)
                    idx += 1
                    top += 1
                    cs_node[top] = w
                    cs_edge[top] = ptr[w]
                elif onstack[w] and index[w] < low[v]:
                    low[v] = index[w]
                continue
            if low[v] == index[v]:
                while True:
                    sp -= 1
                    x = stack[sp]
                    onstack[x] = False
                    label[x] = -2 - next_id  # relabelled below, once c's search is over
                    if x == v:
                        break
                next_id += 1
            top -= 1
            if top >= 0 and low[v] < low[cs_node[top]]:
                low[cs_node[top]] = low[v]
    for i in range(n):
        label[members[i]] = -2 - label[members[i]]
    return next_id


@njit(cache=True)
def _forget_sent(P, sent, ptr, adj, rptr, radj, label, fed, affected, alist, inner, root,
                 broken):  # pragma: no cover - compiled
    """Take the processors that have sent since the last call out of their components: the edges
    they fed others with, and the edges into them from other components, no longer count; returns
    how many components lost members (listed in ``alist``); ``broken[c]``: c lost its search
    trees' root or an inner node, so that it may have split."""
    for v in range(P):
        if sent[v] and label[v] >= 0:
            c = label[v]
            for e in range(ptr[v], ptr[v + 1]):
                w = adj[e]
                if label[w] >= 0 and label[w] != c:
                    fed[label[w]] -= 1
            for e in range(rptr[v], rptr[v + 1]):
                u = radj[e]
                if not sent[u] and label[u] >= 0 and label[u] != c:
                    fed[c] -= 1
    na = 0
    for v in range(P):
        if sent[v] and label[v] >= 0:
            c = label[v]
            if not affected[c]:
                affected[c] = True
                alist[na] = c
                na += 1
            if inner[v] or root[c] == v or root[c] < 0:
                broken[c] = True
            label[v] = -1
    return na


@njit(cache=True)
def _refresh(P, sent, ptr, adj, rptr, radj, label, fed, state, first, mark, queue, members, nxt, index, low,
             onstack, stack, cs_node, cs_edge, inner, root, ok, affected, broken, alist, head,
             size):  # pragma: no cover - compiled
    """Bring the components up to date with ``sent`` and mark the candidates in ``ok``; returns
    how many there are. ``state`` holds the next free label and the search stamp; ``root[c]``
    is the root of component c's forward and backward search trees (-1: none yet), ``inner``
    marks their inner nodes. ``affected``, ``broken`` (False), ``head`` (-1) and ``size`` (0)
    are scratch space per label, left as they were found; ``alist`` has P + 1 entries."""
    if first:
        for v in range(P):
            label[v] = -1 if sent[v] else 0
        fed[0] = 0
        affected[0] = True
        alist[0] = 0
        na = 1
        state[0] = 1
        broken[0] = True
    else:
        na = _forget_sent(P, sent, ptr, adj, rptr, radj, label, fed, affected, alist, inner, root, broken)
    for v in range(P):
        c = label[v]
        if c >= 0 and affected[c]:
            nxt[v] = head[c]
            head[c] = v
    for a in range(na):
        c = alist[a]
        n = 0
        v = head[c]
        while v >= 0:
            members[n] = v
            n += 1
            v = nxt[v]
        if n <= 1 or not broken[c]:
            continue
        for i in range(n):
            inner[members[i]] = False
        root[c] = members[0]
        state[1] += 1
        if _reaches_all(members[0], n, c, ptr, adj, label, mark, state[1], queue, inner):
            state[1] += 1
            if _reaches_all(members[0], n, c, rptr, radj, label, mark, state[1], queue, inner):
                continue
        lo = state[0]
        state[0] = _split(members, n, c, ptr, adj, label, lo, index, low, onstack, stack, cs_node, cs_edge)
        for k in range(lo, state[0]):
            fed[k] = 0
            root[k] = -1
        for i in range(n):
            x = members[i]
            for e in range(rptr[x], rptr[x + 1]):
                u = radj[e]
                if label[u] >= 0 and label[u] != label[x]:
                    fed[label[x]] += 1
    for a in range(na):
        c = alist[a]
        affected[c] = False
        broken[c] = False
        head[c] = -1
    for v in range(P):
        if label[v] >= 0:
            size[label[v]] += 1
    count = 0
    for v in range(P):
        c = label[v]
        ok[v] = c >= 0 and fed[c] == 0 and size[c] >= 2
        if ok[v]:
            count += 1
    for v in range(P):
        if label[v] >= 0:
            size[label[v]] = 0
    return count


def _csr(keys: np.ndarray, values: np.ndarray, P: int) -> tuple[np.ndarray, np.ndarray]:
    """``values`` grouped by ``keys`` (in their order within a group) as CSR offsets and entries."""
    ptr = np.zeros(P + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys, minlength=P), out=ptr[1:])
    return ptr, values[stable_order(keys, P)].astype(np.int32)


class WaitingComponents:
    """The waiting graph's components, kept up to date from one forced send to the next."""

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

    def candidates(self, sent: np.ndarray) -> np.ndarray:
        """The processors that may be forced, ascending, given which ones have sent (a set that
        only grows from one call to the next)."""
        ok = np.zeros(self.P, np.bool_)
        _refresh(self.P, np.ascontiguousarray(sent, dtype=np.bool_), self.ptr, self.adj, self.rptr, self.radj,
                 self.label, self.fed, self.state, self.first, self.mark, self.queue, self.members, self.nxt,
                 self.index, self.low, self.onstack, self.stack, self.cs_node, self.cs_edge, self.inner, self.root, ok,
                 self.affected, self.broken, self.alist, self.head, self.size)
        self.first = False
        return np.flatnonzero(ok).astype(np.int32)


def cycle_candidates(step: CommStep, sent: np.ndarray) -> list[int]:
    """The processors that may be forced to break a deadlock: members of the strongly connected
    components of the not-yet-sent processors that no other waiting component feeds (and that
    have an edge inside, so that they wait on each other)."""
    return WaitingComponents(step).candidates(sent).tolist()


def reference_candidates(step: CommStep, sent: np.ndarray) -> list[int]:
    """The same set from SciPy's strongly connected components (the reference of the kernel)."""
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
