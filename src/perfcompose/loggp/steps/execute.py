"""Simulating a whole program: computation steps and communication steps alternate per processor (paper 002, section 2),
each processor entering a step when it has finished the previous one. The gaps of section 3 hold across steps too: a
processor's first send of a step keeps its gap to its last receive of the step before, whatever it computed in between.

``computation[p]`` is the sum of p's computation times, ``communication[p]`` the rest of its finish time (its
communication, including waiting for messages).
"""
from __future__ import annotations

import numpy as np

from perfcompose.errors import InputError
from perfcompose.loggp.options import LogGPOptions, Semantics
from perfcompose.loggp.params import LogGP
from perfcompose.loggp.results import ForcedSend, Op, ProgramResult, StepResult
from perfcompose.loggp.steps.program import CommStep, CompStep, Program
from perfcompose.loggp.steps.simulate import GapOrigin, Ties, simulate_step
from perfcompose.loggp.steps.worstcase import worst_case_step

#: the declared defaults of the simulation options
_DEFAULT = LogGPOptions()

__all__ = ["Semantics", "ProgramResult", "simulate_program", "step_seed"]


def step_seed(seed: int, step: int) -> int:
    """The seed of step ``step``'s random choices: distinct per step, reproducible from ``seed``."""
    return int(np.random.SeedSequence([int(seed) % (2 ** 63), step]).generate_state(1)[0])


def simulate_program(program: Program, params: LogGP, *, worst_case: bool = _DEFAULT.worst_case,
                     semantics: Semantics = "paper", gap_origin: GapOrigin = _DEFAULT.gap_origin,
                     ties: Ties = _DEFAULT.ties,
                     seed: int = _DEFAULT.seed, timelines: bool = True, O: float = 0.0, S: float = 65535.0,
                     start: np.ndarray | None = None) -> ProgramResult:
    """Simulate ``program`` step by step: the standard algorithm (Figure 2), the worst case
    (section 4.2, ``worst_case=True``) or LogGOPSim's semantics (``semantics="loggopsim"``, where
    ``O`` is the overhead per byte and ``S`` the rendezvous threshold, by default LogGOPSim's 65,535 bytes)."""
    if semantics == "loggopsim":
        if worst_case:
            raise InputError("the worst case is an algorithm of the paper's semantics",
                             hint="drop --worst-case, or use --semantics paper")
        from perfcompose.loggp.goal.loggopsim import simulate_program_loggopsim

        return simulate_program_loggopsim(program, params, O=O, S=S, timelines=timelines)
    if semantics != "paper":
        raise InputError(f"semantics {semantics!r}: choose 'paper' or 'loggopsim'")
    P = program.P
    t = np.zeros(P) if start is None else np.array(start, dtype=np.float64)
    t_begin = t.copy()
    comp = np.zeros(P)
    ops: list[list[Op]] = [[] for _ in range(P)]
    forced: list[ForcedSend] = []
    offset = 0
    ready: tuple[np.ndarray, np.ndarray] | None = None
    for k, s in enumerate(program.steps):
        if isinstance(s, CompStep):
            if timelines:
                for p in np.flatnonzero(s.durations > 0):
                    ops[p].append(Op("comp", None, float(t[p]), float(t[p] + s.durations[p])))
            t = t + s.durations
            comp += s.durations
            continue
        assert isinstance(s, CommStep)
        run = worst_case_step if worst_case else simulate_step
        kwargs = {"step_index": k} if worst_case else {}
        r: StepResult = run(s, params, start=t, ready=ready, gap_origin=gap_origin, ties=ties,
                            seed=step_seed(seed, k), **kwargs)
        ready = (r.next_send, r.next_recv)
        forced.extend(r.forced)
        if timelines:
            for proc, step_ops in enumerate(r.ops(offset)):  # messages numbered over the whole program
                ops[proc].extend(step_ops)
        offset += s.M
        t = r.finish.copy()
    return ProgramResult(P, t, comp, t - t_begin - comp, ops, tuple(forced))
