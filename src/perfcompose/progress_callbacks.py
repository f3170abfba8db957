"""Progress callbacks ``(label, done, total)`` drawn on a rich ``Progress`` display: one bar for a
whole job, or one bar per task; the library's long jobs report through them and the commands show them.
And a bar over the phases of one run on a large input (:func:`phases`)."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["one_bar", "per_task", "phases"]


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


@contextmanager
def phases(path: Path, names: tuple[str, ...], large: int = 8 * 2 ** 20) -> Iterator[Callable[[str | None], None]]:
    """A bar on stderr over the phases of one run on the file ``path`` (``loggp simulate``'s reading and
    simulating), shown only for an input of at least ``large`` bytes (seconds of work; Rich is imported only
    then): ``step(name)`` marks the start of the phase ``name`` (one of ``names``, in order); ``step(None)``
    takes the bar away (before the results are printed)."""
    try:
        shown = path.stat().st_size >= large
    except OSError:
        shown = False
    if not shown:
        yield lambda name: None
        return
    from perfcompose.commands.consoles import progress

    with progress() as bar:
        task = bar.add_task(f"{names[0]} ({path.name})", total=len(names))

        def step(name: str | None) -> None:
            if name is None:
                bar.stop()
            else:
                bar.update(task, completed=names.index(name), description=f"{name} ({path.name})")

        yield step
