"""How much other programs ran on the machine while a measurement ran.

A worker that waits for a core has lost it either to another program or to a thread of this
process: the executor's feeding thread, or a library's own threads (BLAS, OpenMP, a thread pool
inside a library). Only the first disturbs a measurement; the second is the program's own work.
The machine's busy time over all cores (Linux ``/proc/stat``, in clock ticks) less this
process's CPU time over every one of its threads, those started during the run included
(``CLOCK_PROCESS_CPUTIME_ID``), is what other programs ran.
"""
from __future__ import annotations

import os
import time

#: seconds per clock tick of /proc/stat
TICK = 1.0 / (os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100)
#: other programs count as present over a measurement once they ran more than this many ticks
#: in it (its readings are whole ticks per core at each end)
TICKS = 2

Mark = tuple[float, float]


def system_busy() -> float | None:
    """Seconds every core of the machine has been busy since it started, or None where the
    system does not say."""
    try:
        with open("/proc/stat", "rb") as f:
            fields = f.readline().split()
        if fields[0] != b"cpu":
            return None
        user, nice, system, _idle, _iowait, irq, softirq, *rest = (int(v) for v in fields[1:])
        steal = rest[0] if rest else 0
        return (user + nice + system + irq + softirq + steal) * TICK
    except (OSError, ValueError, IndexError):
        return None


def mark() -> Mark | None:
    """The machine's busy time and this process's CPU time now, or None where not known."""
    busy = system_busy()
    return None if busy is None else (busy, time.process_time())


def others_since(before: Mark | None) -> float | None:
    """Seconds that other programs ran on the machine since ``before`` (:func:`mark`)."""
    now = mark()
    if before is None or now is None:
        return None
    return max((now[0] - before[0]) - (now[1] - before[1]), 0.0)


def others_present(before: Mark | None, share: float, span: float) -> bool:
    """Whether other programs ran more than ``share`` of ``span`` seconds (and more than
    :data:`TICKS` ticks) since ``before``; True where the system does not say, so that the
    caller's own evidence decides."""
    others = others_since(before)
    return others is None or others > max(share * span, TICKS * TICK)


def thread_waits() -> dict[int, int]:
    """Nanoseconds every thread of this process has waited, ready, for a core (Linux
    ``/proc/self/task/*/schedstat``), by thread id; empty where the kernel does not say."""
    waits: dict[int, int] = {}
    try:
        for task in os.scandir("/proc/self/task"):
            try:
                with open(f"{task.path}/schedstat", "rb") as f:
                    waits[int(task.name)] = int(f.read().split()[1])
            except (FileNotFoundError, IndexError, ValueError):  # the thread ended meanwhile
                continue
    except OSError:
        return {}
    return waits


def waits_since(before: dict[int, int], exclude: tuple[int | None, ...] = ()) -> float:
    """Seconds the threads of this process waited for a core since ``before``
    (:func:`thread_waits`), those started since included, but for the threads in ``exclude``."""
    now = thread_waits()
    return sum(w - before.get(t, 0) for t, w in now.items() if t not in exclude) * 1e-9
