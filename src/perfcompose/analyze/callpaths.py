"""The call tree of a profile, built from its call paths (``main->solve->MPI_Allreduce``).

A call path names its callers, outermost first, joined by ``->`` (the way Score-P's CUBE files and
Extra-P name them). A path whose caller was not measured still hangs under that caller, which the
tree holds as an unmeasured node; regions without ``->`` form a flat tree. Everything hangs under
one root: the only outermost region when there is one, else a root that stands for the program.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

SEPARATOR = "->"

#: the call path of the root added above several outermost regions
PROGRAM = "(program)"


def caller(path: str) -> str | None:
    """The call path of the caller, or None for an outermost region.

    >>> caller("main->solve->MPI_Allreduce"), caller("main")
    ('main->solve', None)
    """
    head, sep, _ = path.rpartition(SEPARATOR)
    return head if sep else None


def region(path: str) -> str:
    """The region a call path ends in: ``main->solve`` -> ``solve``."""
    return path.rpartition(SEPARATOR)[2]


@dataclass(frozen=True)
class CallTree:
    """Each call path's callees, in the order they were first seen; ``measured`` are the paths
    with measurements (the others are callers added to hold them)."""

    root: str
    callees: Mapping[str, tuple[str, ...]]
    measured: frozenset[str]

    def postorder(self) -> list[str]:
        """Every call path, callees before their caller (the order a bottom-up pass needs)."""
        out: list[str] = []
        stack: list[tuple[str, bool]] = [(self.root, False)]
        while stack:
            path, done = stack.pop()
            if done:
                out.append(path)
                continue
            stack.append((path, True))
            stack.extend((c, False) for c in reversed(self.callees.get(path, ())))
        return out


def call_tree(paths: Iterable[str]) -> CallTree:
    """The tree of ``paths`` (see the module).

    >>> t = call_tree(["main", "main->a", "main->a->b", "main->c"])
    >>> t.root, t.callees["main"], t.postorder()
    ('main', ('main->a', 'main->c'), ['main->a->b', 'main->a', 'main->c', 'main'])
    >>> call_tree(["a", "b"]).callees["(program)"]
    ('a', 'b')
    """
    measured = list(dict.fromkeys(paths))
    callees: dict[str, list[str]] = {}
    known: dict[str, None] = {}
    tops: list[str] = []

    def add(path: str) -> None:
        if path in known:
            return
        known[path] = None
        up = caller(path)
        if up is None:
            tops.append(path)
            return
        add(up)
        callees.setdefault(up, []).append(path)

    for path in measured:
        add(path)
    if len(tops) == 1:
        root = tops[0]
    else:
        root = PROGRAM
        callees[PROGRAM] = tops
    return CallTree(root, {k: tuple(v) for k, v in callees.items()}, frozenset(measured))
