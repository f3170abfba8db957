"""The call tree of a profile, built from its call paths (``main->solve->MPI_Allreduce``, as Score-P
and Extra-P name them).

A path whose caller was not measured hangs under it as an unmeasured node; several outermost
regions hang under one root that sums them. A *flat* profile (no path names a caller) stays flat:
every region is a root of its own. A path tagged as running on a GPU (``gpu``, ``device``) or on
another thread than its caller (``thread``; untagged: its caller's, an outermost one the main
thread, 0 or ``"main"``) runs *beside* its caller: shown under it, not summed into it, and an
outermost one on a helper thread is a root of its own."""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

SEPARATOR = "->"

#: the call path of the root added above several outermost regions of a call tree
PROGRAM = "(program)"
#: tags that put a call path on a device
DEVICE_TAGS = ("gpu", "device")
#: the tag naming a call path's thread, and the values that name the main thread
THREAD_TAG = "thread"
MAIN_THREAD = (None, 0, "0", "main")


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
    with measurements (the others are callers added to hold them). ``roots`` are the outermost
    nodes, the first the program's (main thread's) run; ``beside`` the paths not summed into
    their caller (see the module)."""

    roots: tuple[str, ...]
    callees: Mapping[str, tuple[str, ...]]
    measured: frozenset[str]
    beside: frozenset[str] = frozenset()

    @property
    def root(self) -> str:
        """The root that stands for the run (of a flat profile: its first region)."""
        return self.roots[0]

    @property
    def flat(self) -> bool:
        """Whether the profile names no callers, so that the nesting of its regions is unknown."""
        return not self.callees and len(self.roots) > 1

    def summed(self, path: str) -> tuple[str, ...]:
        """The callees whose values add up in ``path``'s (those not beside it)."""
        return tuple(c for c in self.callees.get(path, ()) if c not in self.beside)

    def postorder(self) -> list[str]:
        """Every call path, callees before their caller (the order a bottom-up pass needs)."""
        out: list[str] = []
        stack: list[tuple[str, bool]] = [(r, False) for r in reversed(self.roots)]
        while stack:
            path, done = stack.pop()
            if done:
                out.append(path)
                continue
            stack.append((path, True))
            stack.extend((c, False) for c in reversed(self.callees.get(path, ())))
        return out


def beside_callers(tags: Mapping[str, Mapping[str, Any]]) -> frozenset[str]:
    """The call paths (of those tagged, by path) that run beside their caller: on a device where
    the caller is not, or on another thread (see the module).

    >>> sorted(beside_callers({"main->k": {"gpu": True}, "main->k->x": {"gpu": True}, "io": {"thread": 1}}))
    ['io', 'main->k']
    """
    def up(path: str | None) -> Iterator[Mapping[str, Any]]:
        """The tags of ``path`` and of its callers, innermost first."""
        while path is not None:
            yield tags.get(path, {})
            path = caller(path)

    def thread(path: str | None) -> Any:
        value = next((t[THREAD_TAG] for t in up(path) if THREAD_TAG in t), None)
        return None if value in MAIN_THREAD else value

    def device(path: str | None) -> bool:
        return any(t.get(d) for t in up(path) for d in DEVICE_TAGS)

    return frozenset(p for p in tags if (device(p) and not device(caller(p))) or thread(p) != thread(caller(p)))


def call_tree(paths: Iterable[str], beside: frozenset[str] = frozenset()) -> CallTree:
    """The tree of ``paths`` (see the module); ``beside``: the paths that run beside their caller.

    >>> t = call_tree(["main", "main->a", "main->a->b", "main->c"])
    >>> t.root, t.callees["main"], t.postorder()
    ('main', ('main->a', 'main->c'), ['main->a->b', 'main->a', 'main->c', 'main'])
    >>> call_tree(["a", "b"]).roots, call_tree(["a->x", "b"]).callees["(program)"]
    (('a', 'b'), ('a', 'b'))
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
    program = [t for t in tops if t not in beside]
    helpers = tuple(t for t in tops if t in beside)
    if not callees or len(program) <= 1:
        roots = (*program, *helpers)
    else:
        callees[PROGRAM] = program
        roots = (PROGRAM, *helpers)
    return CallTree(roots, {k: tuple(v) for k, v in callees.items()}, frozenset(measured), beside)
