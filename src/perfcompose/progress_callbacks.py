"""Progress callbacks ``(label, done, total)`` drawn on a rich ``Progress`` display: one bar for a
whole job, or one bar per task; the library's long jobs report through them and the commands show them."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["one_bar", "per_task"]


def one_bar(bar: Any) -> Callable[[str, int, int], None]:
    """A progress callback with one bar for the whole job; the label says what runs now."""
    job: list[Any] = []

    def step(label: str, k: int, n: int) -> None:
        if not job:
            job.append(bar.add_task(label, total=n))
        bar.update(job[0], completed=k, description=label)

    return step


def per_task(bar: Any) -> Callable[[str, int, int], None]:
    """A progress callback that shows one bar per task."""
    jobs: dict[str, Any] = {}

    def step(name: str, k: int, n: int) -> None:
        if name not in jobs:
            jobs[name] = bar.add_task(name, total=n)
        bar.update(jobs[name], completed=k)

    return step
