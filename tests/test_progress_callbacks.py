"""Progress callbacks on a rich display: one bar for the whole job, or one bar per task."""
from __future__ import annotations

from rich.progress import Progress

from perfcompose.data import Experiment
from perfcompose.fit.profile import fit_profile
from perfcompose.progress_callbacks import one_bar, per_task


def test_one_bar_keeps_one_task_whose_label_follows_the_step() -> None:
    bar = Progress(disable=True)
    step = one_bar(bar)
    step("first", 0, 4)
    step("second", 3, 4)
    (task,) = bar.tasks
    assert (task.description, task.completed, task.total) == ("second", 3, 4)


def test_per_task_opens_a_bar_for_each_name() -> None:
    bar = Progress(disable=True)
    step = per_task(bar)
    step("qsort", 1, 2)
    step("inc", 2, 5)
    step("qsort", 2, 2)
    assert [(t.description, t.completed, t.total) for t in bar.tasks] == [("qsort", 2, 2), ("inc", 2, 5)]


def test_a_profile_fit_draws_one_bar_on_a_rich_display() -> None:
    e = Experiment.single(["x"], [((x,), (3 + 2 * x,)) for x in (4, 8, 16, 32, 64)])
    bar = Progress(disable=True)
    fit_profile(e, progress=bar)
    (task,) = bar.tasks
    assert task.completed == task.total == 1
