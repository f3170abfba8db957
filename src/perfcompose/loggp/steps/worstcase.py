"""The overestimation ("worst case") algorithm of paper 002, section 4.2.

Every processor first receives all the messages it expects (in arrival order), then sends all of
its own (in its send order), with the same LogGP rules and gaps as :mod:`.simulate`. A cycle of
processors waiting on one another is broken by forcing one of them to send early: it receives
what has already been sent to it, sends everything, then receives the rest. The forced processor
is drawn (seeded) from the cycles that nothing else still waits on; with a feeder edge into the
cycle the choice changes the result, so every forced send is reported. Messages that arrive at
the same time are received in the order of their ids.
"""
from __future__ import annotations

import random

import numpy as np

from perfcompose.loggp.kernels import backend
from perfcompose.loggp.kernels.step_inputs import check_options, initial_gaps, recv_pointers, start_times
from perfcompose.loggp.options import GapOrigin, LogGPOptions, Ties
from perfcompose.loggp.params import LogGP
from perfcompose.loggp.results import ForcedSend, StepResult
from perfcompose.loggp.steps.components import WaitingComponents, cycle_candidates
from perfcompose.loggp.steps.program import CommStep

#: the declared defaults of the simulation options
_DEFAULT = LogGPOptions()

__all__ = ["worst_case_step", "cycle_candidates"]


def worst_case_step(step: CommStep, params: LogGP, *, start: np.ndarray | None = None,
                    ready: tuple[np.ndarray, np.ndarray] | None = None, gap_origin: GapOrigin = _DEFAULT.gap_origin,
                    ties: Ties = _DEFAULT.ties, seed: int = _DEFAULT.seed, step_index: int = 0) -> StepResult:
    """Simulate one step with section 4.2's overestimation algorithm; ``forced`` lists the sends
    forced to break cycles (the choice is seeded, or the lowest rank with ``ties="rank"``)."""
    check_options(gap_origin, ties)
    t0 = start_times(step, start)
    P, M = step.P, step.M
    recv_ptr = recv_pointers(step)
    next_send, recv_ready = initial_gaps(t0, ready)
    finish = t0.copy()
    send_start, recv_start = np.zeros(M), np.zeros(M)
    send_seq, recv_seq = np.zeros(M, dtype=np.int64), np.zeros(M, dtype=np.int64)
    rng = random.Random(seed)
    module = backend.compiled_module()
    if module is not None:  # the whole loop in the extension, which asks rng for each choice
        choose = None if ties == "rank" else (lambda n: rng.choice(range(n)))
        forced_b, offsets_b, cands_b = module.worst_step(
            P, step.src, step.dst, step.nbytes, step.order, step.send_ptr, recv_ptr, params.L, params.o, params.g,
            params.G, gap_origin == "end", choose, send_start, recv_start, send_seq, recv_seq, finish, next_send,
            recv_ready)
        offsets, cands = np.frombuffer(offsets_b, np.int64).tolist(), np.frombuffer(cands_b, np.int32)
        made = tuple(ForcedSend(step_index, f, cands[offsets[i]:offsets[i + 1]])
                     for i, f in enumerate(np.frombuffer(forced_b, np.int64).tolist()))
        return StepResult(step, params, t0, send_start, recv_start, send_seq, recv_seq, finish, next_send,
                          recv_ready, made)
    # Numba: the kernel runs until all wait on each other, the loop here forces one of them
    sent = np.zeros(P, dtype=np.bool_)
    waiting = np.bincount(step.dst, minlength=P).astype(np.int64)
    rsize = np.zeros(P, dtype=np.int64)
    counters = np.zeros(2, dtype=np.int64)
    stack = np.zeros(2 * P + 1, dtype=np.int64)
    forced_sends: list[ForcedSend] = []
    forced = -1
    components: WaitingComponents | None = None
    kernel, arrival_heaps = backend.worst_kernel()
    heaps = arrival_heaps(M)  # kept from one call to the next
    while True:
        remaining = kernel(P, step.dst, step.nbytes, step.order, step.send_ptr, recv_ptr, params.L,
                           params.o, params.g, params.G, gap_origin == "end", forced, sent, waiting, *heaps,
                           rsize, next_send, recv_ready, finish, send_start, recv_start, send_seq, recv_seq,
                           counters, stack)
        if remaining == 0:
            break
        if components is None:
            components = WaitingComponents(step)
        candidates = components.candidates(sent)
        if not candidates.size:  # cannot happen: every waiting processor waits on another waiting one
            raise AssertionError("deadlock without a cycle")
        forced = int(candidates[0] if ties == "rank" else candidates[rng.choice(range(candidates.size))])
        forced_sends.append(ForcedSend(step_index, forced, candidates))
    return StepResult(step, params, t0, send_start, recv_start, send_seq, recv_seq, finish, next_send, recv_ready,
                      tuple(forced_sends))
