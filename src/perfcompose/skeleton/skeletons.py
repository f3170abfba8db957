"""The skeletons of 001 section 2 and their time and work formulas.

Every skeleton splits T(n, p) into distributed sequential work (:meth:`Skeleton.share`) and the
penalty per PE, Ā(n, p) = T(n, p) − share: the general law T(n)/p + Ā; parMap with
T(n) = n·T(1); farm with T(n/p) + Ā; iteration with k steps of T(n)/k; flat divide and conquer
(section 2.2) with branching r and depth d:

    T(n, p) = Σ_{i<d} r^i·Ā(n/r^i, p) + r^d/p·T(n/r^d) + O(n, n/r^d, p),

T(n/r^d) the sequential time of a leaf and the divide and merge work O = T(n) − r^d·T(n/r^d), run
in the parent; the per-level penalty sum is the skeleton's Ā, built by :meth:`Skeleton.time`.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import sympy as sp

from perfcompose.choices import SKELETON_KINDS
from perfcompose.errors import InputError
from perfcompose.model import Model, symbol
from perfcompose.skeleton_options import SkeletonShape

KINDS = SKELETON_KINDS


@dataclass(frozen=True)
class Skeleton(SkeletonShape):
    """A skeleton: ``general`` (eq. *), ``parmap``, ``farm``, ``dc`` (branching r, depth d) or
    ``iteration`` (k iterations).

    >>> Skeleton("dc", r=3, d=2).name
    'dc(r=3, d=2)'
    """

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
        return {"dc": f"dc(r={self.r}, d={self.d})", "iteration": f"iteration(k={self.k})"}.get(self.kind, self.kind)

    def share(self, T: Callable[[np.ndarray], np.ndarray], n: float | np.ndarray,
              p: float | np.ndarray) -> np.ndarray:
        """The sequential work each PE does, from ``T(n)``: farm T(n/p); dc r^d/p·T(n/r^d) +
        O(n, n/r^d, p) (see the module; at the relative reference O also holds the one-PE overhead);
        the others T(n)/p."""
        n, p = np.asarray(n, dtype=float), np.asarray(p, dtype=float)
        if self.kind == "farm":
            return np.asarray(T(n / p), dtype=float)
        if self.kind == "dc":
            leaves = float(self.r) ** self.d
            leaf = np.asarray(T(n / leaves), dtype=float)
            merge = np.asarray(T(n), dtype=float) - leaves * leaf
            return leaves / p * leaf + merge
        return np.asarray(T(n), dtype=float) / p

    def overhead(self, T: Model) -> Model:
        """dc: O(n, n/r^d, p) = T(n) − r^d·T(n/r^d), the parent's divide and merge work; 0 otherwise."""
        n = symbol("n")
        if self.kind != "dc":
            return Model(sp.Integer(0), params=("n",), unit=T.unit, source=f"{self.name}: O")
        leaves = sp.Integer(self.r) ** self.d
        expr = T.expr - leaves * T.expr.xreplace({n: n / leaves})
        return Model(expr, params=("n",), unit=T.unit, source=f"{self.name}: O(n, n/r^d, p)")

    def penalty_sum(self, A: Model) -> Model:
        """dc: Σ_{i<d} r^i·Ā(n/r^i, p) from a per-level penalty Ā; the others: Ā itself."""
        if self.kind != "dc":
            return A
        n = symbol("n")
        expr = sp.Add(*(sp.Integer(self.r) ** i * A.expr.xreplace({n: n / sp.Integer(self.r) ** i})
                        for i in range(self.d)))
        return Model(expr, params=A.params, unit=A.unit, source=f"{self.name}: Σ r^i·Ā(n/r^i, p)")

    def time(self, T: Model, A: Model, O: Model | None = None) -> Model:
        """T(n, p) as a model from models of T(n) and Ā(n, p); dc sums Ā over the levels
        (:meth:`penalty_sum`), ``O`` (default :meth:`overhead`) the divide and merge work."""
        n, p = symbol("n"), symbol("p")
        if self.kind == "dc":
            leaves = sp.Integer(self.r) ** self.d
            O = O or self.overhead(T)
            expr = (self.penalty_sum(A).expr + leaves / p * T.expr.xreplace({n: n / leaves}) + O.expr)
            return Model(expr, params=("n", "p"), unit=T.unit, source=f"{self.name}: T(n, p)")
        seq = T.expr.xreplace({n: n / p}) if self.kind == "farm" else T.expr / p
        return Model(seq + A.expr, params=("n", "p"), unit=T.unit, source=f"{self.name}: T(n, p)")

    def work(self, T: Model, A: Model, O: Model | None = None) -> Model:
        """W(n, p): the total work on p PEs (section 2), p·T(n, p) by definition."""
        return Model(symbol("p") * self.time(T, A, O).expr, params=("n", "p"), unit=T.unit,
                     source=f"{self.name}: W(n, p)")

def penalty(t_np: float | np.ndarray, t_seq: float | np.ndarray, p: float | np.ndarray) -> np.ndarray:
    """Ā(n, p) = T(n, p) − T(n)/p: the parallel overhead per PE of equation (*)."""
    return np.asarray(t_np, dtype=float) - np.asarray(t_seq, dtype=float) / np.asarray(p, dtype=float)


def serial_fraction(t_np: float | np.ndarray, t_seq: float | np.ndarray, p: float | np.ndarray) -> np.ndarray:
    """Karp and Flatt's serial fraction f(n, p) = (T(n, p)/T(n) − 1/p) / (1 − 1/p), for p > 1."""
    p = np.asarray(p, dtype=float)
    if np.any(p <= 1):
        raise InputError("the serial fraction needs p > 1 PEs")
    return (np.asarray(t_np, dtype=float) / np.asarray(t_seq, dtype=float) - 1.0 / p) / (1.0 - 1.0 / p)
