"""The skeletons of 001 section 2 and their time and work formulas.

Every skeleton splits T(n, p) into distributed sequential work and the penalty per PE, Ā(n, p):
the general law (*) T(n, p) = T(n)/p + Ā(n, p); parMap with T(n) = n·T(1); farm with
T(n/p) + Ā(n, p); flat divide and conquer with branching r and depth d; iteration with k steps of
s(n) = T(n)/k. :meth:`Skeleton.share` is the distributed work, so Ā = T(n, p) − share.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import sympy as sp

from perfcompose.errors import InputError
from perfcompose.model import Model, symbol

KINDS = ("general", "parmap", "farm", "dc", "iteration")


@dataclass(frozen=True)
class Skeleton:
    """A skeleton: ``general`` (eq. *), ``parmap``, ``farm``, ``dc`` (branching r, depth d) or
    ``iteration`` (k iterations).

    >>> Skeleton("dc", r=3, d=2).name
    'dc(r=3, d=2)'
    """

    kind: str = "general"
    r: int = 2
    d: int = 1
    k: int = 1

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise InputError(f"unknown skeleton {self.kind!r}", hint=f"choose one of {', '.join(KINDS)}")
        if self.kind == "dc" and (self.r < 2 or self.d < 1):
            raise InputError(f"divide and conquer needs branching r >= 2 and depth d >= 1, got r={self.r}, "
                             f"d={self.d}")
        if self.kind == "iteration" and self.k < 1:
            raise InputError(f"iteration needs k >= 1 iterations, got {self.k}")

    @property
    def name(self) -> str:
        if self.kind == "dc":
            return f"dc(r={self.r}, d={self.d})"
        if self.kind == "iteration":
            return f"iteration(k={self.k})"
        return self.kind

    def share(self, T: Callable[[np.ndarray], np.ndarray], n: float | np.ndarray,
              p: float | np.ndarray) -> np.ndarray:
        """The sequential work each PE does, from the sequential time ``T(n)``.

        farm: T(n/p), one block of n/p elements; dc: r^d/p · T(n/r^d) with the leaves taking the
        whole sequential time, T(n/r^d) = T(n)/r^d (the divide-and-merge work O is not separable
        from the penalty at the relative reference point, and the paper discards it, 4.3); the
        others: T(n)/p.
        """
        n, p = np.asarray(n, dtype=float), np.asarray(p, dtype=float)
        if self.kind == "farm":
            return np.asarray(T(n / p), dtype=float)
        return np.asarray(T(n), dtype=float) / p

    def time(self, T: Model, A: Model) -> Model:
        """T(n, p) as a model from models of T(n) (in n) and Ā(n, p) (in n and/or p)."""
        n, p = symbol("n"), symbol("p")
        seq = T.expr.xreplace({n: n / p}) if self.kind == "farm" else T.expr / p
        return Model(seq + A.expr, params=("n", "p"), unit=T.unit, source=f"{self.name}: T(n, p)")

    def work(self, T: Model, A: Model) -> Model:
        """W(n, p): the total work on p PEs (section 2), p·T(n, p) by definition."""
        p = symbol("p")
        expr: sp.Expr
        if self.kind == "farm":
            expr = p * T.expr.xreplace({symbol("n"): symbol("n") / p}) + p * A.expr
        else:
            expr = T.expr + p * A.expr
        return Model(expr, params=("n", "p"), unit=T.unit, source=f"{self.name}: W(n, p)")

    def unit_work(self, T: Model) -> Model | None:
        """T(1) of parMap (T(n) = n·T(1)) or s(n) of iteration (T(n) = k·s(n)); None otherwise."""
        if self.kind == "parmap":
            return Model(T.expr / symbol("n"), params=T.params, unit=T.unit, source="parMap: T(1) = T(n)/n")
        if self.kind == "iteration":
            return Model(T.expr / self.k, params=T.params, unit=T.unit, source=f"iteration: s(n) = T(n)/{self.k}")
        return None


def penalty(t_np: float | np.ndarray, t_seq: float | np.ndarray, p: float | np.ndarray) -> np.ndarray:
    """Ā(n, p) = T(n, p) − T(n)/p: the parallel overhead per PE of equation (*)."""
    return np.asarray(t_np, dtype=float) - np.asarray(t_seq, dtype=float) / np.asarray(p, dtype=float)


def serial_fraction(t_np: float | np.ndarray, t_seq: float | np.ndarray, p: float | np.ndarray) -> np.ndarray:
    """Karp and Flatt's serial fraction f(n, p) = (T(n, p)/T(n) − 1/p) / (1 − 1/p), for p > 1."""
    p = np.asarray(p, dtype=float)
    if np.any(p <= 1):
        raise InputError("the serial fraction needs p > 1 PEs")
    return (np.asarray(t_np, dtype=float) / np.asarray(t_seq, dtype=float) - 1.0 / p) / (1.0 - 1.0 / p)
