"""The value types the LogGP simulators return: one operation of a timeline (``Op``), a send the worst case forced
(``ForcedSend``), a simulated communication step (``StepResult``), a simulated program (``ProgramResult``) and a
simulated GOAL schedule (``GoalResult``); each one's makespan is the latest of its finish times."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from perfcompose.loggp.params import LogGP
from perfcompose.loggp.steps.program import CommStep

if TYPE_CHECKING:
    from perfcompose.loggp.goal.schedule import GoalSchedule

__all__ = ["Op", "ForcedSend", "StepResult", "ProgramResult", "GoalResult"]


class _Finished:
    """A result with each processor's (rank's) finish time."""

    finish: np.ndarray

    @property
    def makespan(self) -> float:
        """When the last processor finishes (0 without processors)."""
        return float(self.finish.max()) if self.finish.size else 0.0


class Op(NamedTuple):
    """One operation of a processor's timeline: ``kind`` is "send", "recv" or "comp"."""

    kind: str
    message: int | None
    start: float
    end: float


@dataclass(frozen=True, eq=False)
class ForcedSend:
    """A processor the worst-case algorithm made send before it had received everything, to break
    a cycle; ``candidates`` are the processors it could have chosen (the cycles' members), kept
    as one compact array (``candidate_array``)."""

    step: int
    processor: int
    candidate_array: np.ndarray = field(repr=False)

    @property
    def candidates(self) -> tuple[int, ...]:
        return tuple(int(p) for p in self.candidate_array)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ForcedSend):
            return NotImplemented
        return (self.step, self.processor) == (other.step, other.processor) and \
            np.array_equal(self.candidate_array, other.candidate_array)

    def __hash__(self) -> int:
        return hash((self.step, self.processor, self.candidate_array.size))


@dataclass(frozen=True, eq=False)
class StepResult(_Finished):
    """The simulated timeline of one communication step.

    ``send_start[m]``/``recv_start[m]`` are when message m's send and receive began (each takes
    ``o``); ``send_seq``/``recv_seq`` order each processor's operations; ``finish[p]`` is the end
    of p's last operation (its start time when it has none); ``next_send``/``next_recv`` are the
    earliest times the gaps allow p's next send and receive (carried into the next step).
    """

    step: CommStep
    params: LogGP
    start: np.ndarray
    send_start: np.ndarray
    recv_start: np.ndarray
    send_seq: np.ndarray
    recv_seq: np.ndarray
    finish: np.ndarray
    next_send: np.ndarray
    next_recv: np.ndarray
    forced: tuple[ForcedSend, ...] = field(default=())

    def ops(self, offset: int = 0) -> list[list[Op]]:
        """Each processor's operations in the order it performs them; messages are numbered from
        ``offset`` (their ids in the step plus ``offset``)."""
        s, o, M, P = self.step, self.params.o, self.step.M, self.step.P
        proc = np.concatenate([s.src, s.dst])
        seq = np.concatenate([self.send_seq, self.recv_seq])
        start = np.concatenate([self.send_start, self.recv_start])
        idx = np.lexsort((seq, proc))
        bounds = np.searchsorted(proc[idx], np.arange(P + 1)).tolist()
        kinds = np.array(["send", "recv"], dtype=object)[(idx >= M).astype(np.intp)].tolist()
        messages = (np.where(idx < M, idx, idx - M) + offset).tolist()
        starts = start[idx]
        begin, end = starts.tolist(), (starts + o).tolist()
        ops = list(map(Op, kinds, messages, begin, end))
        return [ops[bounds[p]:bounds[p + 1]] for p in range(P)]


@dataclass(frozen=True, eq=False)
class ProgramResult(_Finished):
    """Per-processor finish, computation and communication times of a simulated program, and
    every processor's timeline (``ops``: kind, message, start, end; messages are numbered over the
    whole program in step order, computations have message None)."""

    P: int
    finish: np.ndarray
    computation: np.ndarray
    communication: np.ndarray
    ops: list[list[Op]]
    forced: tuple[ForcedSend, ...] = field(default=())

    @property
    def critical(self) -> int:
        """The processor that finishes last (the most computation among equals)."""
        top = self.finish == self.finish.max()
        return int(np.flatnonzero(top)[np.argmax(self.computation[top])])

    def summary(self) -> dict[str, float]:
        """Total, computation and communication time of the processor that finishes last."""
        c = self.critical
        return {"total": self.makespan, "computation": float(self.computation[c]),
                "communication": float(self.communication[c])}


@dataclass(frozen=True, eq=False)
class GoalResult(_Finished):
    """Per-rank finish time (LogGOPSim's: the latest ``nexto``) and every operation's CPU interval
    (a receive's is when its overhead was charged, on arrival), over all operations
    (``op_start``/``op_end``) and per rank (``start``/``end``)."""

    finish: np.ndarray
    op_start: np.ndarray
    op_end: np.ndarray
    schedule: GoalSchedule = field(repr=False)

    @property
    def start(self) -> list[np.ndarray]:
        return np.split(self.op_start, self.schedule.op_ptr[1:-1])

    @property
    def end(self) -> list[np.ndarray]:
        return np.split(self.op_end, self.schedule.op_ptr[1:-1])
