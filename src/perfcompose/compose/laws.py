"""The relational theory of the operators (000, section 5.1), checked for given components.

(i)   pipe(a, pipe(b, c)) = pipe(pipe(a, b), c)
(ii)  pipe(a, b) = pipe(b, a)
(iii) pipe(tpool_n(a), tpool_n(b)) = tpool_n(pipe(a, b))
(iv)  pipe(a, b) >= tpool_2(seq(a, b))

Each instance is decided symbolically when SymPy can (the difference simplifies to zero, or its
sign is fixed by the parameters being positive); otherwise numerically on a grid over the
parameter range, which either holds everywhere or yields the worst counter-example. Where a side
is beyond the range of a double at some point of the grid (``x**x``) and no counter-example is
found elsewhere, the instance is left undecided, with the point that overflows.
"""
from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import sympy as sp

from perfcompose.choices import PipeRule
from perfcompose.compose.operators import Composer
from perfcompose.compose.terms import Pipe, Seq, Term, TPool
from perfcompose.errors import InputError
from perfcompose.model import Model

Relation = Literal["=", ">="]

LAWS: dict[str, str] = {
    "i": "associativity of pipe",
    "ii": "commutativity of pipe",
    "iii": "layering neutrality",
    "iv": "pipe vs task pool of seq",
}

#: thread and node counts tried for parameters other than the size
COUNTS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64)
#: the pipeline max the laws are checked with by default (``compose laws --pipe``): the papers' algebra
PIPE: PipeRule = "asymptotic"


@dataclass(frozen=True)
class LawCheck:
    """One instance of a law: both sides, their models, and whether the relation held."""

    law: str
    left: Term
    right: Term
    relation: Relation
    lhs: Model
    rhs: Model
    held: bool
    method: Literal["symbolic", "numeric"]
    counterexample: Mapping[str, float] | None = field(default=None)
    #: at the counter-example (or the closest call): lhs and rhs values
    values: tuple[float, float] | None = None
    #: where a side is no finite double (it overflows), so that the grid cannot decide the
    #: instance: then ``held`` is False, ``counterexample`` None and ``values`` the values there
    overflow: Mapping[str, float] | None = None

    @property
    def statement(self) -> str:
        return f"{self.left} {self.relation} {self.right}"

    @property
    def undecided(self) -> bool:
        """True when neither SymPy nor the grid could decide the instance (a side overflows)."""
        return self.overflow is not None and self.counterexample is None and not self.held

    @property
    def overflow_text(self) -> str:
        """Which side is not a finite double at :attr:`overflow`, and why, in words."""
        if self.overflow is None or self.values is None:
            return ""
        where = ", ".join(f"{k}={v:g}" for k, v in self.overflow.items())
        bad = [side for side, v in zip(("the left side", "the right side"), self.values) if not np.isfinite(v)]
        both = len(bad) == 2
        what = "both sides" if both else bad[0]
        why = ("are not numbers" if both else "is not a number") if any(np.isnan(v) for v in self.values) else \
            f"{'exceed' if both else 'exceeds'} the largest double ({np.finfo(float).max:.3g})"
        return f"at {where} {what} {why}"


def instances(stages: Sequence[Term], threads: str = "n") -> list[tuple[str, Term, Term, Relation]]:
    """The law instances over the given stages: every ordered triple for (i), every pair for
    (ii)-(iv) (ordered for (iii), unordered for (ii) and (iv)); a stage may repeat when there are
    fewer stages than a law has places."""
    c = list(stages)
    triples = list(itertools.permutations(c, 3)) if len(c) >= 3 else \
        [(a, b, a) for a, b in itertools.permutations(c, 2)] or [(c[0], c[0], c[0])]
    pairs = list(itertools.combinations(c, 2)) or [(c[0], c[0])]
    return [*(("i", Pipe(a, Pipe(b, d)), Pipe(Pipe(a, b), d), "=") for a, b, d in triples),
            *(("ii", Pipe(a, b), Pipe(b, a), "=") for a, b in pairs),
            *(("iii", Pipe(TPool(threads, a), TPool(threads, b)), TPool(threads, Pipe(a, b)), "=")
              for a, b in (list(itertools.permutations(c, 2)) or [(c[0], c[0])])),
            *(("iv", Pipe(a, b), TPool(2, Seq(a, b)), ">=") for a, b in pairs)]


def _symbolic(diff: sp.Expr, relation: Relation) -> bool | None:
    """True/False when SymPy decides ``diff = 0`` (or ``diff >= 0``), None when it cannot.

    What holds on its face (a difference that is 0 as built, or non-negative by its terms' signs) is
    decided at once; an inequality that does not hold on its face, and a difference holding a
    pointwise Max or Min, are left to the grid, since ``simplify`` spends the better part of a
    second on them and then, but for a constant difference, decides nothing."""
    if diff == 0 or (relation == ">=" and diff.is_nonnegative is True):
        return True
    if relation == ">=" and not diff.free_symbols:
        return False if diff.is_nonnegative is False else None
    if relation == ">=" or diff.has(sp.Max, sp.Min):
        return None
    try:
        d = sp.simplify(diff)
    except Exception:  # SymPy gives up on some Max/implemented-function expressions
        return None
    if d == 0:
        return True
    return False if (d.is_zero is False and not d.free_symbols) else None


def _grid(params: Sequence[str], size: str, x_range: tuple[float, float], points: int
          ) -> dict[str, np.ndarray]:
    lo, hi = x_range
    xs = np.unique(np.concatenate([np.geomspace(lo, hi, points), [lo, hi]]))
    axes = [xs if p == size else np.asarray(COUNTS, dtype=float) for p in params]
    mesh = np.meshgrid(*axes, indexing="ij") if axes else []
    return {p: a.ravel() for p, a in zip(params, mesh)}


def check(law: str, left: Term, right: Term, relation: Relation, composer: Composer,
          x_range: tuple[float, float] = (2.0 ** 10, 2.0 ** 18), points: int = 257,
          rtol: float = 1e-9) -> LawCheck:
    """Decide one instance: symbolically if possible, else on a grid over the parameter range."""
    lhs, rhs = composer.model(left), composer.model(right)
    params = list(dict.fromkeys((composer.size,) + lhs.params + rhs.params))
    decided = _symbolic(lhs.expr - rhs.expr, relation) if not (lhs.is_numeric or rhs.is_numeric) else None
    grid = _grid(params, composer.size, x_range, points)
    lv = np.broadcast_to(lhs(**{p: grid[p] for p in lhs.params}), grid[params[0]].shape)
    rv = np.broadcast_to(rhs(**{p: grid[p] for p in rhs.params}), grid[params[0]].shape)
    finite = np.isfinite(lv) & np.isfinite(rv)
    # points where a side is no double decide nothing: they neither hold nor fail
    with np.errstate(invalid="ignore", over="ignore"):
        scale = np.maximum(np.maximum(np.abs(lv), np.abs(rv)), 1e-300)
        if relation == "=":
            bad = np.where(finite, np.abs(lv - rv) / scale, -np.inf)
            worst = int(np.argmax(bad))
            numeric_ok = bool(bad[worst] <= rtol)
        else:
            margin = np.where(finite, (lv - rv) / scale, np.inf)
            worst = int(np.argmin(margin))
            numeric_ok = bool(margin[worst] >= -rtol)
    method: Literal["symbolic", "numeric"] = "symbolic" if decided is not None else "numeric"
    point = {p: float(grid[p][worst]) for p in params}
    values = (float(lv[worst]), float(rv[worst]))
    if decided is None and numeric_ok and not finite.all():
        first = int(np.argmin(finite))
        return LawCheck(law, left, right, relation, lhs, rhs, False, method,
                        values=(float(lv[first]), float(rv[first])),
                        overflow={p: float(grid[p][first]) for p in params})
    held = decided if decided is not None else numeric_ok
    return LawCheck(law, left, right, relation, lhs, rhs, held, method,
                    counterexample=None if held else point, values=values)


def check_laws(components: Mapping[str, Model], stages: Sequence[str | Term] | None = None, *,
               pipe: PipeRule = PIPE, size: str = "x",
               x_range: tuple[float, float] = (2.0 ** 10, 2.0 ** 18), threads: str = "n"
               ) -> list[LawCheck]:
    """Check laws (i)-(iv) with the given stages (terms or their text; all components by default).

    >>> C = {"inc": Model.parse("536.185*x"), "qsort": Model.parse("1034.17*x*log2(x)")}
    >>> [(c.law, c.held) for c in check_laws(C) if c.law in ("ii", "iv")]
    [('ii', True), ('iv', True)]
    """
    composer = Composer(components, pipe=pipe, size=size)
    terms = [composer.parse(s) if isinstance(s, str) else s for s in (stages or list(components))]
    if not terms:
        raise ValueError("check_laws needs at least one stage")
    if threads == size or any(threads in composer.model(t).params for t in terms):
        raise InputError(f"the thread count name '{threads}' is already a parameter of the stages",
                         hint=f"rename that parameter in the stage models; '{threads}' counts the threads "
                              "of the laws' task pools")
    return [check(law, left, right, rel, composer, x_range) for law, left, right, rel in instances(terms, threads)]
