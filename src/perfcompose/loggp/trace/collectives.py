"""MPI collectives as point-to-point algorithms: what one rank sends and receives, step by step.

An algorithm gives, for the rank ``v`` of ``n`` (ranks of the communicator), the steps it takes:
each step a tuple of messages ``(kind, peer, bytes)`` issued together, the next step starting when
all of them have completed. ``nbytes`` is what the call moves per rank (the buffer of a broadcast
or reduction, one rank's block of a gather, scatter, allgather or alltoall).

=========  =====================================================================================
bcast      binomial tree from the root (default); linear (the root sends to each rank)
reduce     binomial tree to the root (default); linear (each rank sends to the root)
allreduce  recursive doubling, the ranks beyond a power of two folded in first (default);
           reduce-bcast (binomial reduce to rank 0, then binomial broadcast)
barrier    dissemination: round k sends to v + 2^k and receives from v - 2^k
allgather  ring: n - 1 rounds, each passing one block to the right
alltoall   pairwise exchange: round i exchanges with v XOR i (n a power of two), else sends to
           v + i and receives from v - i
gather     binomial tree (blocks of whole subtrees) (default); linear
scatter    binomial tree (default); linear
reduce_    pairwise exchange of each rank's block (``nbytes`` is the whole vector, a block its
scatter    n-th)
scan       recursive doubling: round k sends to v + 2^k and receives from v - 2^k, where they exist
=========  =====================================================================================
"""
from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, partial

__all__ = ["Message", "Step", "ALGORITHMS", "DEFAULTS", "ROOTED", "expand"]

Message = tuple[str, int, int]  #: (``"send"`` or ``"recv"``, peer rank in the communicator, bytes)
Step = tuple[Message, ...]
Algorithm = Callable[[int, int, int], list[Step]]  #: (rank relative to the root, n, bytes) -> steps


def _binomial_down(v: int, n: int, nbytes: int, *, blocks: bool = False) -> list[Step]:
    """Receive from the parent, then send to each child, farthest first (bcast; scatter with blocks: a
    message to relative rank u at level ``mask`` carries its subtree's min(mask, n - u) blocks)."""
    steps: list[Step] = []
    mask = 1
    while mask < n:
        if v & mask:
            steps.append((("recv", v - mask, nbytes * (min(mask, n - v) if blocks else 1)),))
            break
        mask <<= 1
    mask >>= 1
    while mask > 0:
        if v + mask < n:
            steps.append((("send", v + mask, nbytes * (min(mask, n - v - mask) if blocks else 1)),))
        mask >>= 1
    return steps


def _linear_down(v: int, n: int, nbytes: int) -> list[Step]:
    return [(("send", u, nbytes),) for u in range(1, n)] if v == 0 else [(("recv", 0, nbytes),)]


def _linear_up(v: int, n: int, nbytes: int) -> list[Step]:
    return [(("recv", u, nbytes),) for u in range(1, n)] if v == 0 else [(("send", 0, nbytes),)]


def _up(down: Algorithm) -> Algorithm:
    """The tree of ``down`` walked the other way (reduce, gather): its steps in reverse, each send a receive and
    each receive a send, so that a rank hears from its children, nearest first, then sends to its parent."""
    return lambda v, n, nbytes: [tuple(("recv" if kind == "send" else "send", peer, size) for kind, peer, size in step)
                                 for step in reversed(down(v, n, nbytes))]


def _shift(v: int, n: int, k: int, nbytes: int) -> Step:
    """Send to the rank ``k`` to the right, receive from the rank ``k`` to the left (around the ring)."""
    return (("send", (v + k) % n, nbytes), ("recv", (v - k) % n, nbytes))


def _recursive_doubling(v: int, n: int, nbytes: int) -> list[Step]:
    """Allreduce: the first 2 * (n - 2^k) ranks pair up so that 2^k take part, then log2(2^k) exchanges."""
    pof2 = 1 << (n.bit_length() - 1)
    rem = n - pof2
    if v < 2 * rem and v % 2 == 0:  # folded in: hand the data over, get the result back
        return [(("send", v + 1, nbytes),), (("recv", v + 1, nbytes),)]
    new = v // 2 if v < 2 * rem else v - rem
    partners = (new ^ (1 << k) for k in range(pof2.bit_length() - 1))
    steps: list[Step] = [(("send", p, nbytes), ("recv", p, nbytes))
                         for p in (q * 2 + 1 if q < rem else q + rem for q in partners)]
    if v < 2 * rem:
        return [(("recv", v - 1, nbytes),), *steps, (("send", v - 1, nbytes),)]
    return steps


def _pairwise(v: int, n: int, nbytes: int) -> list[Step]:
    if n & (n - 1) == 0:
        return [(("send", v ^ i, nbytes), ("recv", v ^ i, nbytes)) for i in range(1, n)]
    return [_shift(v, n, i, nbytes) for i in range(1, n)]


def _scan(v: int, n: int, nbytes: int) -> list[Step]:
    steps = [((("send", v + k, nbytes),) if v + k < n else ()) + ((("recv", v - k, nbytes),) if v >= k else ())
             for k in (1 << i for i in range(max(n - 1, 0).bit_length()))]
    return [step for step in steps if step]


_binomial_blocks: Algorithm = partial(_binomial_down, blocks=True)
_binomial_up = _up(_binomial_down)


#: per collective, its algorithms by name; the first is the default
ALGORITHMS: dict[str, dict[str, Algorithm]] = {
    "bcast": {"binomial": _binomial_down, "linear": _linear_down},
    "reduce": {"binomial": _binomial_up, "linear": _linear_up},
    "allreduce": {"recursive-doubling": _recursive_doubling,
                  "reduce-bcast": lambda v, n, b: _binomial_up(v, n, b) + _binomial_down(v, n, b)},
    "barrier": {"dissemination": lambda v, n, b: [_shift(v, n, 1 << i, 1) for i in range(max(n - 1, 0).bit_length())]},
    "allgather": {"ring": lambda v, n, b: [_shift(v, n, 1, b)] * (n - 1)},
    "alltoall": {"pairwise": _pairwise},
    "gather": {"binomial": _up(_binomial_blocks), "linear": _linear_up},
    "scatter": {"binomial": _binomial_blocks, "linear": _linear_down},
    "reduce_scatter": {"pairwise": lambda v, n, b: _pairwise(v, n, b // n)},
    "scan": {"recursive-doubling": _scan},
}
DEFAULTS: dict[str, str] = {name: next(iter(algs)) for name, algs in ALGORITHMS.items()}
#: the collectives whose tree hangs from a root (the others' ranks are taken as they are)
ROOTED = frozenset({"bcast", "reduce", "gather", "scatter"})


@lru_cache(maxsize=4096)
def expand(collective: str, algorithm: str, rank: int, n: int, nbytes: int, root: int = 0) -> tuple[Step, ...]:
    """The steps of ``rank`` (of ``n``) in ``collective`` by ``algorithm``; peers are ranks of the
    communicator, rooted trees turned so that ``root`` is their top (kept for the next call of the same one)."""
    shift = root if collective in ROOTED else 0
    steps = ALGORITHMS[collective][algorithm]((rank - shift) % n, n, nbytes)
    return tuple(tuple((kind, (peer + shift) % n, size) for kind, peer, size in step) for step in steps)
