"""Messages above the MPI library's eager limit sent by rendezvous, written into the schedule.

An MPI library sends a message of up to its eager limit at once; a larger one waits until the
receiver is ready: a request to send goes out, the receiver answers it with a clear to send once
its receive is posted, and only then does the data go (Open MPI over shared memory: above 4,096
bytes, ``btl_vader_eager_limit``; ``ompi_info --param btl vader --level 9`` shows it). LogGP
charges such a message for one trip; the two extra trips of 1 byte are what a ping-pong shows as
a step in its time at the limit. :func:`rendezvous` writes them as GOAL operations, so that
LogGOPSim and perfcompose simulate the same schedule:

==================  =============================================  ====================================
operation           becomes                                        a dependency on it goes to
==================  =============================================  ====================================
send of s > eager   send 1 byte, recv 1 byte (from the receiver),  the data send (requires), the first
                    send s bytes, each requiring the one before    send (irequires)
recv of s > eager   recv 1 byte, send 1 byte (to the sender),      the data receive (requires), the
                    recv s bytes, each requiring the one before    first receive (irequires)
==================  =============================================  ====================================

The request to send carries the message's tag plus :data:`PROTOCOL_TAG`, the clear to send that
tag plus :data:`PROTOCOL_TAG` and :data:`CLEAR_TAG`, so that each pairs as the data do, never with
the other (two ranks that send each other large messages at once would otherwise take one's clear
to send for the other's request) nor with the program's own messages (tags below
:data:`CLEAR_TAG`).
"""
from __future__ import annotations

import numpy as np

from perfcompose.errors import InputError
from perfcompose.loggp.goal.schedule import ANY, CALC, RECV, SEND, GoalSchedule
from perfcompose.loggp.trace.schedule import COLLECTIVE_TAG, by_required

__all__ = ["PROTOCOL_TAG", "CLEAR_TAG", "rendezvous"]

PROTOCOL_TAG = 2 ** 29  #: added to a message's tag for its request to send and clear to send
CLEAR_TAG = 2 ** 28  #: added again for the clear to send


def rendezvous(schedule: GoalSchedule, eager: float) -> tuple[GoalSchedule, np.ndarray]:
    """``schedule`` with every message of more than ``eager`` bytes sent by rendezvous (see the
    module), and for each of its operations the operation of ``schedule`` it comes from."""
    s = schedule
    big = _paired((s.kind != CALC) & (s.size > eager), s)
    if not big.any():
        return s, np.arange(s.num_ops)
    wild = np.flatnonzero(big & ((s.peer == ANY) | (s.tag == ANY)))
    clash = np.flatnonzero(big & (s.tag >= CLEAR_TAG) & (s.tag < COLLECTIVE_TAG))
    if wild.size or clash.size:
        i = int(wild[0] if wild.size else clash[0])
        why = "takes any source or tag" if wild.size else f"has a tag of {CLEAR_TAG} or more"
        raise InputError(f"{s.describe(i)} {why}, so its rendezvous cannot be paired",
                         hint=f"leave out the eager limit, or raise it above {int(s.size[i])} bytes")
    k = np.where(big, 3, 1)
    last = np.cumsum(k) - 1
    first = last - k + 1
    n = int(last[-1]) + 1
    src = np.repeat(np.arange(s.num_ops), k)
    step = np.arange(n) - first[src]              # 0, 1, 2 within a message sent by rendezvous
    handshake = big[src] & (step < 2)
    kind = np.where(big[src] & (step == 1), np.where(s.kind[src] == SEND, RECV, SEND), s.kind[src]).astype(s.kind.dtype)
    size = np.where(handshake, 1, s.size[src]).astype(s.size.dtype)
    clear = handshake & (step == 1)   # the receiver's reply, sent or awaited
    tag = (s.tag[src] + np.where(handshake, PROTOCOL_TAG, 0) + np.where(clear, CLEAR_TAG, 0)).astype(s.tag.dtype)
    chained = np.flatnonzero(big[src] & (step > 0))   # each step requires the one before
    req_a = np.concatenate([first[s.req_a], chained])
    req_b = np.concatenate([last[s.req_b], chained - 1])
    (req_a, req_b), (ireq_a, ireq_b) = by_required(req_a, req_b), by_required(first[s.ireq_a], first[s.ireq_b])
    op_ptr = np.append(first, n)[s.op_ptr]
    message = None if s.message is None else np.where(handshake, -1, s.message[src])
    return GoalSchedule(s.num_ranks, op_ptr, kind, size, s.peer[src], tag, s.cpu[src], s.nic[src], req_a, req_b,
                        ireq_a, ireq_b, message), src


def _paired(big: np.ndarray, s: GoalSchedule) -> np.ndarray:
    """``big`` with each receive's entry that of the send it pairs with (the n-th send on a channel,
    source, destination and tag, pairs with the n-th receive on it), where every channel has as
    many sends as receives; as it is elsewhere."""
    rank = s.rank_of
    exact = (s.kind != CALC) & (s.peer >= 0) & (s.tag >= 0)
    send = s.kind == SEND
    src, dst = np.where(send, rank, s.peer), np.where(send, s.peer, rank)
    si, ri = np.flatnonzero(exact & send), np.flatnonzero(exact & ~send)
    si, ri = (i[np.lexsort((i, s.tag[i], dst[i], src[i]))] for i in (si, ri))
    if len(si) == len(ri) and all(np.array_equal(c[si], c[ri]) for c in (src, dst, s.tag)):
        big = big.copy()
        big[ri] = big[si]
    return big
