"""Which measured points a forecast may learn from: a training window such as ``n<=100`` or
``p<=196608`` (001 forecasts "from n ≤ 9689"): conditions ``VAR OP NUMBER`` (``n`` or ``p``;
``<= < >= > == !=``) joined by commas or ``and``. A condition on ``p`` keeps the sequential
times (``p = seq``), which have no PE count.

>>> w = Window.parse("n<=100, p!=7")
>>> w.admits(100, 8), w.admits(120, 8), w.admits(50, 7)
(True, False, False)
"""
from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass

from perfcompose.errors import InputError
from perfcompose.skeleton.table import SEQ, RuntimeTable

_OPS: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le, ">=": operator.ge, "==": operator.eq, "!=": operator.ne, "<": operator.lt,
    ">": operator.gt, "=": operator.eq,
}
_CONDITION = re.compile(r"^\s*([np])\s*(<=|>=|==|!=|<|>|=)\s*([-+0-9.eE]+)\s*$")
_HINT = "write conditions like n<=100 or p<=196608, joined by commas or 'and'"


@dataclass(frozen=True)
class Condition:
    """``var op value``: one bound of a training window."""

    var: str
    op: str
    value: float

    def admits(self, n: float, p: int) -> bool:
        if self.var == "p" and p == SEQ:
            return True
        return bool(_OPS[self.op](float(n) if self.var == "n" else float(p), self.value))

    def __str__(self) -> str:
        return f"{self.var}{self.op}{self.value:g}"


@dataclass(frozen=True)
class Window:
    """The measured points a forecast learns from: all conditions hold (an empty window admits all)."""

    conditions: tuple[Condition, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Window:
        parts = [c for c in re.split(r",|\band\b", text) if c.strip()]
        if not parts:
            raise InputError(f"training window {text!r} has no condition", hint=_HINT)
        conditions = []
        for part in parts:
            m = _CONDITION.match(part)
            if m is None:
                raise InputError(f"training window {text!r}: cannot read {part.strip()!r}", hint=_HINT)
            try:
                value = float(m.group(3))
            except ValueError:
                raise InputError(f"training window {text!r}: {m.group(3)!r} is not a number", hint=_HINT) from None
            if not math.isfinite(value):
                raise InputError(f"training window {text!r}: {m.group(3)!r} is not a finite number", hint=_HINT)
            conditions.append(Condition(m.group(1), m.group(2), value))
        return cls(tuple(conditions))

    def admits(self, n: float, p: int) -> bool:
        return all(c.admits(n, p) for c in self.conditions)

    def restrict(self, table: RuntimeTable) -> RuntimeTable:
        """The table with only the points inside the window (not checked: the forecast says what is missing)."""
        keep = [k for k in table.times if self.admits(*k)]
        if not keep:
            raise InputError(f"the training window {self} leaves no measured point of the table",
                             path=table.source or None, hint="widen the window")
        return RuntimeTable({k: table.times[k] for k in keep}, {k: table.texts[k] for k in keep}, table.source)

    def __str__(self) -> str:
        return ", ".join(map(str, self.conditions)) or "all points"
