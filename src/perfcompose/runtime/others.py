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


def mark(children: bool = False) -> Mark | None:
    """The machine's busy time and this process's CPU time now (with ``children``, also that of its
    children waited for: a program it ran), or None where not known."""
    busy, t = system_busy(), os.times()
    own = t.user + t.system + t.children_user + t.children_system if children else time.process_time()
    return None if busy is None else (busy, own)


def others_since(before: Mark | None, children: bool = False, clamp: bool = True) -> float | None:
    """Seconds that other programs ran on the machine since ``before`` (:func:`mark`, with the same
    ``children``); without ``clamp`` as read, below 0 where the whole ticks at both ends read less
    than this process's own time (a sum over many short spans evens such readings out)."""
    now = mark(children)
    if before is None or now is None:
        return None
    seconds = (now[0] - before[0]) - (now[1] - before[1])
    return max(seconds, 0.0) if clamp else seconds


def others_present(before: Mark | None, share: float, span: float) -> bool:
    """Whether other programs ran more than ``share`` of ``span`` seconds (and more than
    :data:`TICKS` ticks) since ``before``; True where the system does not say, so that the
    caller's own evidence decides."""
    others = others_since(before)
    return others is None or others > max(share * span, TICKS * TICK)


def thread_times() -> dict[int, tuple[int, int]]:
    """Nanoseconds every thread of this process has run and waited, ready, for a core (Linux
    ``/proc/self/task/*/schedstat``), by thread id; empty where the kernel does not say."""
    times: dict[int, tuple[int, int]] = {}
    try:
        for task in os.scandir("/proc/self/task"):
            try:
                with open(f"{task.path}/schedstat", "rb") as f:
                    run, wait = f.read().split()[:2]
                times[int(task.name)] = (int(run), int(wait))
            except (FileNotFoundError, ValueError):  # the thread ended meanwhile
                continue
    except OSError:
        return {}
    return times


def other_threads_demand(before: dict[int, tuple[int, int]], cpu_before: float, exclude: set[int],
                         ended_excluded: float = 0.0) -> float:
    """Seconds that threads of this process other than ``exclude`` ran or waited for a core since
    ``before`` (:func:`thread_times`) and ``cpu_before`` (``time.process_time()``): the threads
    alive now by their own readings, and those that ended meanwhile by what the process's CPU
    time holds beyond every live thread's and ``ended_excluded``, the CPU seconds of excluded
    threads that ended."""
    now = thread_times()
    if not now:
        return 0.0
    mine = sum((run - before.get(t, (0, 0))[0]) + (wait - before.get(t, (0, 0))[1])
               for t, (run, wait) in now.items() if t not in exclude)
    live = sum(run - before.get(t, (0, 0))[0] for t, (run, _) in now.items())
    ended = max(time.process_time() - cpu_before - live * 1e-9 - ended_excluded, 0.0)
    return mine * 1e-9 + ended
