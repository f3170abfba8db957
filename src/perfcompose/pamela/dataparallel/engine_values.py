"""What the Modeling Engine knows of a program's values (arrays, scalars, runs) and the PAMELA text
it writes of them: the machine calls of element-wise work, products, and steps put in sequence."""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

__all__ = ["Array", "Scalar", "Runs", "Step", "Cost", "elementwise", "paren", "mul", "render"]


@dataclass
class Array:
    shape: tuple[str, ...]          # local extents as PAMELA expressions
    strided: bool = False
    width: str | None = None        # length of the rows of memory a slice lies in (None: its own)
    dist_axis: int | None = None    # the distributed axis of a declared array
    layout: str = "replicated"
    global_shape: tuple[str, ...] = ()


@dataclass
class Scalar:
    expr: str


@dataclass
class Runs:
    """A list of arrays (what alltoall returns, np.split gives): their total size and count."""

    size: str
    count: str


@dataclass
class Step:
    text: str
    compute: bool  # runs on processor p (inside par); else a step every processor takes part in


#: the machine calls an expression costs, in the order they run
Cost = list[str]


def elementwise(out: Array, strided: bool, elements: str) -> str:
    """The machine call of element-wise work on ``elements`` elements yielding ``out``: along a
    column (``ews``), on a block of matrix rows (``ewb`` where the block is part of rows of a known
    length, which it may or may not fill; ``ewm`` otherwise) or on a contiguous vector (``ew``)."""
    if strided:
        return f"ews(p, {elements})"
    if len(out.shape) == 2 and out.width is not None:
        return f"ewb(p, {out.shape[0]}, {out.shape[1]}, {out.width})"
    return f"{'ewm' if len(out.shape) >= 2 else 'ew'}(p, {elements})"


def paren(e: str) -> str:
    return e if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*|\d+(\.\d*)?", e) else f"({e})"


def mul(*factors: str) -> str:
    fs = [f for f in factors if f != "1"]
    return " * ".join(paren(f) for f in fs) if fs else "1"


def render(steps: list[Step]) -> str:
    """Steps in sequence, every run of computation inside one ``par (p = 0, P - 1)``."""
    out: list[str] = []
    for compute, group in itertools.groupby(steps, key=lambda s: s.compute):
        texts = [s.text for s in group]
        out += [f"par (p = 0, P - 1) {{ {' ; '.join(texts)} }}"] if compute else texts
    return " ;\n    ".join(out)
