"""A progress bar over the phases of one ``loggp simulate`` run (reading, checking, simulating,
writing), shown on stderr for inputs large enough to take seconds, gone when the run ends. Rich is
imported only for the bar, so that the command's run without typer (:func:`.simulate.run`) can ask."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

LARGE_INPUT = 8 * 2 ** 20  #: inputs of at least this many bytes get the bar


@contextmanager
def phases(path: Path, names: tuple[str, ...], large: int = LARGE_INPUT) -> Iterator[Callable[[str | None], None]]:
    """``step(name)`` marks the start of the phase ``name`` (one of ``names``, in order);
    ``step(None)`` takes the bar away (before the results are printed). Only an input of at least
    ``large`` bytes gets the bar."""
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
