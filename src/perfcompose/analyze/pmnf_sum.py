"""A sum of PMNF terms held as numbers: what the analysis fits, composes and evaluates.

A fitted call path is ``c0 + c1 * t1 + c2 * t2``; a caller's ``seq(own, callees)`` is the sum of
its parts, like terms merged, and its bootstrap members (:mod:`perfcompose.analyze.members`) the
row-wise sums of theirs. Values, intervals, texts and orders come from the numbers alone, without
symbolic models, so analysing ten thousand call paths costs little beside fitting them.

>>> a = PMNFSum.of_terms(("p",), 1.0, [(2.0, (("p", 1, 0),))])
>>> b = PMNFSum.of_terms(("p",), 0.5, [(3.0, (("p", 1, 0),)), (1.0, (("p", 0, 1),))])
>>> total = PMNFSum.total([a, b])
>>> total.text(), float(total.values([[8.0]])[0])
('1.5 + 1.0 * log2(p)^(1) + 5.0 * p^(1)', 44.5)
>>> order_text(total.order("p"), "p")
'p^(1)'
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import Any

import numpy as np

from perfcompose.pmnf_text import extrap_text

#: one term's exponents: (parameter, i, j) per parameter it holds, in the parameters' order
Key = tuple[tuple[str, Fraction, Fraction], ...]


#: the growth ``x^i * log2(x)^j`` in one parameter, as ``(i, j)``, compared lexicographically
Order = tuple[Fraction, Fraction]
#: the growth of a constant
_FLAT: Order = (Fraction(0), Fraction(0))


def order_text(order: Order, name: str) -> str:
    """``p^(1) * log2(p)^(1)`` for an order in ``p``.

    >>> order_text((Fraction(1, 2), Fraction(1)), "p"), order_text((Fraction(0), Fraction(0)), "p")
    ('p^(1/2) * log2(p)^(1)', '1')
    """
    i, j = order
    parts = ([f"{name}^({i})"] if i else []) + ([f"log2({name})^({j})"] if j else [])
    return " * ".join(parts) or "1"


@lru_cache(maxsize=4096)
def key(params: tuple[str, ...], exps: tuple[tuple[str, Any, Any], ...]) -> Key:
    """A term's exponents as a :data:`Key`: exact fractions, zero factors left out, in the parameters' order."""
    return tuple(sorted(((n, Fraction(i), Fraction(j)) for n, i, j in exps if i or j),
                        key=lambda e: params.index(e[0])))


@dataclass(frozen=True, eq=False)
class PMNFSum:
    """``coefficients[0] + sum_k coefficients[k + 1] * keys[k]``; ``members`` (resamples x
    (1 + terms)) the same sum with resampled coefficients, or None where it is exact."""

    params: tuple[str, ...]
    keys: tuple[Key, ...]
    coefficients: np.ndarray
    members: np.ndarray | None = None

    @classmethod
    def of_terms(cls, params: Sequence[str], constant: float,
                 terms: Iterable[tuple[float, Sequence[tuple[str, Any, Any]]]]) -> PMNFSum:
        """A sum from its constant and ``(coefficient, ((parameter, i, j), ...))`` terms."""
        params = tuple(params)
        merged: dict[Key, float] = {}
        for coef, exps in terms:
            k = key(params, tuple(exps))
            if k:
                merged[k] = merged.get(k, 0.0) + float(coef)
            else:
                constant += float(coef)
        return cls(params, tuple(merged), np.array([constant, *merged.values()], dtype=float))

    @classmethod
    def constant(cls, params: Sequence[str], value: float) -> PMNFSum:
        return cls(tuple(params), (), np.array([float(value)]))

    def with_members(self, members: np.ndarray | None) -> PMNFSum:
        return PMNFSum(self.params, self.keys, self.coefficients, members)

    def design(self, X: Any) -> np.ndarray:
        """The constant and every term at the coordinates ``X`` (points x parameters): (points, 1 + terms)."""
        return Columns(self.params, X).design(self.keys)

    def values(self, X: Any) -> np.ndarray:
        return self.design(X) @ self.coefficients

    def member_values(self, X: Any) -> np.ndarray | None:
        """Every member at ``X``: (members, points), or None for an exact sum."""
        return None if self.members is None else self.members @ self.design(X).T

    def text(self, digits: int | None = None) -> str:
        """The sum in Extra-P's syntax, as :meth:`perfcompose.model.Model.to_extrap` writes it."""
        return extrap_text(float(self.coefficients[0]), list(zip(self.coefficients[1:].tolist(), self.keys)),
                           self.params, digits)

    def order(self, param: str) -> Order:
        """The fastest growth in ``param`` among the terms with a coefficient."""
        return self._orders.get(param, _FLAT)

    @cached_property
    def _orders(self) -> dict[str, Order]:
        best: dict[str, Order] = {}
        for key, coef in zip(self.keys, self.coefficients[1:].tolist()):
            if coef != 0.0:
                for n, i, j in key:
                    if (i, j) > best.get(n, _FLAT):
                        best[n] = (i, j)
        return best

    @staticmethod
    def total(parts: Sequence[PMNFSum]) -> PMNFSum:
        """The sum of ``parts`` (in the same parameters): terms merged, members added row by row
        (an exact part adds its value to every row)."""
        params = parts[0].params
        index: dict[Key, int] = {}
        for part in parts:
            for key in part.keys:
                index.setdefault(key, len(index) + 1)
        coefficients = np.zeros(len(index) + 1)
        rows = [p.members.shape[0] for p in parts if p.members is not None]
        members = np.zeros((min(rows), len(index) + 1)) if rows else None
        for part in parts:
            where = np.array([0, *(index[k] for k in part.keys)])
            np.add.at(coefficients, where, part.coefficients)
            if members is not None:
                add = part.coefficients[None, :] if part.members is None else part.members[:members.shape[0]]
                members[:, where] += add
        return PMNFSum(params, tuple(index), coefficients, members)


class Columns:
    """The terms evaluated at one set of coordinates, each term once: the profiles' series share
    their points, so ten thousand models of a few dozen distinct terms need a few dozen columns."""

    def __init__(self, params: Sequence[str], X: Any):
        self.X = np.asarray(X, dtype=float)
        self.params = tuple(params)
        self._columns: dict[Key, np.ndarray] = {}
        self._designs: dict[tuple[Key, ...], np.ndarray] = {}

    def column(self, key: Key) -> np.ndarray:
        out = self._columns.get(key)
        if out is None:
            out = np.ones(self.X.shape[0])
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                for name, i, j in key:
                    x = self.X[:, self.params.index(name)]
                    if i:
                        out = out * x ** float(i)
                    if j:
                        out = out * np.log2(x) ** float(j)
            self._columns[key] = out
        return out

    def design(self, keys: Sequence[Key]) -> np.ndarray:
        """The columns ``1, key_1, key_2, ...`` (points, 1 + terms), read-only: models of the same
        terms share it."""
        keys = tuple(keys)
        out = self._designs.get(keys)
        if out is None:
            out = self._designs[keys] = np.stack([np.ones(self.X.shape[0]), *(self.column(k) for k in keys)], axis=1)
            out.flags.writeable = False
        return out
