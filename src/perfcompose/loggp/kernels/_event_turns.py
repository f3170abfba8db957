"""What the two Numba forms of LogGOPSim's event loop (:mod:`._goal_numba` on a GOAL schedule,
:mod:`._steps_loggopsim_numba` on a program's steps) do alike: take the next event off the heap,
and decide about a group of operations after one of its members ran or had to wait whether the
heap's first event comes after a given (time, stamp), and so whether the next member runs at
once. The decisions are inlined where they are compiled (``inline="always"``), so that sharing
them costs the loops nothing; taking the event off is one call, in place of the call to
:func:`~perfcompose._heap.heap_pop` it does the work of (inlined, it cost the loops 2-4 %)."""
from __future__ import annotations

from perfcompose._heap import heap_push, heap_replace_root
from perfcompose._jit import njit

__all__ = ["first_after", "member_turn", "pop_first"]


@njit(cache=True)
def pop_first(hkey, htb, hid, hn):  # pragma: no cover - compiled
    """The heap's first event taken off: its time, stamp and id, and the heap's new size (the
    last entry sifted down from the root, as :func:`~perfcompose._heap.heap_pop` does)."""
    t, tb, ident = hkey[0], htb[0], hid[0]
    hn -= 1
    if hn > 0:
        heap_replace_root(hkey, htb, hid, 0, hn, hkey[hn], htb[hn], hid[hn])
    return t, tb, ident, hn


@njit(cache=True, inline="always")
def first_after(hkey, htb, hn, t, tb):  # pragma: no cover - compiled
    """Whether the heap's first event comes after (t, tb): there is none, or it is later, or as
    late with a later stamp."""
    return hn == 0 or hkey[0] > t or (hkey[0] == t and htb[0] > tb)


@njit(cache=True, inline="always")
def member_turn(hkey, htb, hid, hn, t, tsn, grp):  # pragma: no cover - compiled
    """The group ``grp``'s next member's turn at t (its stamp ``tsn``): run at once where no
    event comes first (the returned flag, "carry"), else queued. Returns the heap's size and
    the flag."""
    if first_after(hkey, htb, hn, t, tsn):
        return hn, True
    return heap_push(hkey, htb, hid, 0, hn, t, tsn, grp), False


