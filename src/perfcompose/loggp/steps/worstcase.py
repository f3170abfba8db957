"""The overestimation ("worst case") algorithm of paper 002, section 4.2.

Every processor first receives all the messages it expects (in arrival order), then sends all of its own (in its send
order), with the same LogGP rules and gaps as :mod:`.simulate`. A cycle of processors waiting on one another is broken
by forcing one of them to send early: it receives what has already been sent to it, sends everything, then receives the
rest. The forced processor is drawn (seeded) from the cycles that nothing else still waits on; with a feeder edge into
the cycle the choice changes the result, so every forced send is reported. Messages that arrive at the same time are
received in the order of their ids.
"""
from __future__ import annotations

import random

import numpy as np

from perfcompose.loggp.kernels.backend import compiled_module, note_reference
from perfcompose.loggp.options import GapOrigin, LogGPOptions, Ties
from perfcompose.loggp.params import LogGP
from perfcompose.loggp.results import ForcedSend, StepResult
from perfcompose.loggp.steps import simulate as rule
from perfcompose.loggp.steps.components import cycle_candidates
from perfcompose.loggp.steps.program import CommStep
from perfcompose.loggp.steps.simulate import check_options, initial_gaps, recv_pointers, start_times

#: the declared defaults of the simulation options
_DEFAULT = LogGPOptions()

__all__ = ["worst_case_step", "reference_worst_step", "cycle_candidates"]


def worst_case_step(step: CommStep, params: LogGP, *, start: np.ndarray | None = None,
                    ready: tuple[np.ndarray, np.ndarray] | None = None, gap_origin: GapOrigin = _DEFAULT.gap_origin,
                    ties: Ties = _DEFAULT.ties, seed: int = _DEFAULT.seed, step_index: int = 0) -> StepResult:
    """Simulate one step with section 4.2's overestimation algorithm; ``forced`` lists the sends
    forced to break cycles (the choice is seeded, or the lowest rank with ``ties="rank"``)."""
    check_options(gap_origin, ties)
    t0 = start_times(step, start)
    next_send, recv_ready = initial_gaps(t0, ready)
    rng = random.Random(seed)
    module = compiled_module()
    if module is None:
        note_reference()
        return reference_worst_step(step, params, t0, (next_send, recv_ready), gap_origin, ties == "rank", rng,
                                    step_index)
    P, M = step.P, step.M
    finish = t0.copy()
    send_start, recv_start = np.zeros(M), np.zeros(M)
    send_seq, recv_seq = np.zeros(M, dtype=np.int64), np.zeros(M, dtype=np.int64)
    # the whole loop in the extension, which asks rng for each choice
    choose = None if ties == "rank" else (lambda n: rng.choice(range(n)))
    forced_b, offsets_b, cands_b = module.worst_step(
        P, step.src, step.dst, step.nbytes, step.order, step.send_ptr, recv_pointers(step), params.L, params.o,
        params.g, params.G, gap_origin == "end", choose, send_start, recv_start, send_seq, recv_seq, finish, next_send,
        recv_ready)
    offsets, cands = np.frombuffer(offsets_b, np.int64).tolist(), np.frombuffer(cands_b, np.int32)
    made = tuple(ForcedSend(step_index, f, cands[offsets[i]:offsets[i + 1]])
                 for i, f in enumerate(np.frombuffer(forced_b, np.int64).tolist()))
    return StepResult(step, params, t0, send_start, recv_start, send_seq, recv_seq, finish, next_send,
                      recv_ready, made)


def reference_worst_step(step: CommStep, params: LogGP, t0: np.ndarray, ready: tuple[np.ndarray, np.ndarray],
                         gap_origin: GapOrigin, by_rank: bool, rng: random.Random, step_index: int) -> StepResult:
    """Section 4.2 written out with lists (the reference the compiled kernel is tested against, and what runs where it
    is not built): processors whose messages have all been sent to them are taken last in, first out (ascending at the
    start); each receives what it has, in arrival order (ties by message id), then sends everything. Where all wait, one
    of the candidates of :func:`cycle_candidates` is forced: it receives what it has and sends, and receives the rest
    once it has all been sent."""
    P, M = step.P, step.M
    next_send, next_recv = ready
    finish = t0.copy()
    send_start, recv_start = np.zeros(M), np.zeros(M)
    send_seq, recv_seq = np.zeros(M, dtype=np.int64), np.zeros(M, dtype=np.int64)
    pending: list[list[tuple[float, int]]] = [[] for _ in range(P)]  # (arrival, message)
    waiting = np.bincount(step.dst, minlength=P).tolist()
    sent = np.zeros(P, dtype=np.bool_)
    forced: list[ForcedSend] = []
    seq = 0
    stack = [p for p in range(P) if waiting[p] == 0]
    while True:
        while stack:
            p = stack.pop()
            for arrival, m in sorted(pending[p]):
                r = max(next_recv[p], arrival)
                recv_start[m], recv_seq[m], finish[p] = r, seq, r + params.o
                next_send[p] = rule.send_after_recv(r, params, gap_origin)
                next_recv[p] = rule.recv_after_recv(r, params)
                seq += 1
            pending[p] = []
            if sent[p]:
                continue
            sent[p] = True
            for m in step.send_order(p):
                s, k, d = next_send[p], float(step.nbytes[m]), int(step.dst[m])
                send_start[m], send_seq[m], finish[p] = s, seq, s + params.o
                pending[d].append((rule.arrival_time(s, k, params), m))
                next_send[p] = rule.send_after_send(s, k, params)
                next_recv[p] = rule.recv_after_send(s, k, params, gap_origin)
                seq += 1
                waiting[d] -= 1
                if waiting[d] == 0:
                    stack.append(d)
        if sent.all():
            return StepResult(step, params, t0, send_start, recv_start, send_seq, recv_seq, finish, next_send,
                              next_recv, tuple(forced))
        candidates = np.array(cycle_candidates(step, sent), dtype=np.int32)
        stack = [int(candidates[0] if by_rank else candidates[rng.choice(range(candidates.size))])]
        forced.append(ForcedSend(step_index, stack[0], candidates))
