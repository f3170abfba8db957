"""The waiting graph's components (:mod:`perfcompose.loggp.steps.components`) kept up to date by
Numba, the implementation used where the C extension (``_cstep.c``, the same functions line for
line) is not built: searches that check whether a component still holds together, Tarjan's
algorithm for one that may have split, and the refresh that brings them up to date with the
processors that have sent."""
from __future__ import annotations

from perfcompose._jit import njit

__all__ = ["refresh"]


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
def refresh(P, sent, ptr, adj, rptr, radj, label, fed, state, first, mark, queue, members, nxt, index, low,
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
