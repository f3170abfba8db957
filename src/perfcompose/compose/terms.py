"""Terms of the pattern language (000, eq. 1): the structure of a program, without any model.

``T ::= f | seq(T,T) | pipe(T,T) | tpool_n(T) | mapReduce^{d,k}_{m,n}(T, shuffle^o_{m,n}, T)``

Terms are immutable values; ``str(term)`` prints the text syntax that
:func:`perfcompose.compose.parse_term` reads back. Positions (line, column in the text they were
parsed from) ride along for error messages but take no part in equality.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import sympy as sp

from perfcompose.model import Model

#: a thread or node count: a positive integer, or a name kept symbolic (``tpool_n``)
Count = int | str


@dataclass(frozen=True)
class Position:
    """Where a term starts in the text it was parsed from (1-based line and column)."""

    line: int
    column: int


_NOWHERE = field(default=None, compare=False, repr=False)


class Term:
    """Base class of the term AST."""

    pos: Position | None

    def children(self) -> tuple[Term, ...]:
        return ()

    def walk(self) -> Iterator[Term]:
        """This term and every subterm, depth first, left to right."""
        yield self
        for child in self.children():
            yield from child.walk()

    def components(self) -> tuple[str, ...]:
        """Names of the atomic components, each once, in order of first use."""
        return tuple(dict.fromkeys(t.name for t in self.walk() if isinstance(t, Component)))


@dataclass(frozen=True)
class Component(Term):
    """An atomic function ``f``: a named building block with a model of its own."""

    name: str
    pos: Position | None = _NOWHERE

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class _Binary(Term):
    """A pattern of two terms, written n-ary as ``keyword(a, b, c)`` = ``keyword(keyword(a, b), c)``."""

    first: Term
    second: Term
    pos: Position | None = _NOWHERE
    keyword: ClassVar[str] = ""

    def children(self) -> tuple[Term, ...]:
        return (self.first, self.second)

    def __str__(self) -> str:
        return f"{self.keyword}({', '.join(str(t) for t in flatten(self, type(self)))})"


@dataclass(frozen=True)
class Seq(_Binary):
    """Sequential concatenation: ``first`` then ``second`` on each data element."""

    keyword: ClassVar[str] = "seq"


@dataclass(frozen=True)
class Pipe(_Binary):
    """Pipeline of two stages running concurrently on successive data elements."""

    keyword: ClassVar[str] = "pipe"


@dataclass(frozen=True)
class TPool(Term):
    """Task pool: ``threads`` workers each running ``body`` on its own data element."""

    threads: Count
    body: Term
    pos: Position | None = _NOWHERE

    def children(self) -> tuple[Term, ...]:
        return (self.body,)

    def __str__(self) -> str:
        return f"tpool_{self.threads}({self.body})"


def _expr_text(e: sp.Expr) -> str:
    return str(Model(e))


@dataclass(frozen=True)
class Shuffle(Term):
    """The shuffle phase of a MapReduce: ``keys`` keys (o) exchanged among ``m`` x ``n`` workers.

    Its model is either a named component (time as a function of the elements per key) or eq. 7
    of 000: the bytes of every key-value pair over the link bandwidth.
    """

    m: Count
    n: Count
    keys: sp.Expr
    model: str | None = None
    pair_bytes: float = 16.0
    bandwidth: float | None = None
    pos: Position | None = _NOWHERE


@dataclass(frozen=True)
class MapReduce(Term):
    """``mapReduce^{d,k}_{m,n}(map, shuffle, reduce)`` on ``m`` nodes of ``n`` threads each.

    ``keys`` is k(x), the number of keys, and ``per_key`` is d(x), the elements per key, both
    expressions in the input size x.
    """

    map: Term
    shuffle: Shuffle
    reduce: Term
    m: Count
    n: Count
    keys: sp.Expr
    per_key: sp.Expr
    pos: Position | None = _NOWHERE

    def children(self) -> tuple[Term, ...]:
        return (self.map, self.shuffle, self.reduce)

    def __str__(self) -> str:
        parts = [f"map={self.map}", f"reduce={self.reduce}", f"m={self.m}", f"n={self.n}",
                 f"keys={_expr_text(self.keys)}", f"per_key={_expr_text(self.per_key)}"]
        s = self.shuffle
        if s.keys != self.keys:
            parts.append(f"o={_expr_text(s.keys)}")
        if s.model is not None:
            parts.append(f"shuffle={s.model}")
        if s.bandwidth is not None:
            parts.append(f"bandwidth={s.bandwidth!r}")
        if s.pair_bytes != 16.0:
            parts.append(f"bytes={s.pair_bytes!r}")
        return f"mapreduce({', '.join(parts)})"


def threads_used(term: Term, counts: Mapping[str, float] | None = None) -> int:
    """The threads a term keeps busy at once: a task pool's count times its body's, the sum over
    a pipeline's stages, the widest part of a sequence, m x n for a MapReduce.

    ``tpool_7(tpool_2(qsort))`` uses 14. Symbolic counts take their values from ``counts``.
    """
    def count(c: Count) -> int:
        if isinstance(c, int):
            return c
        if counts is None or c not in counts:
            raise ValueError(f"give a value for the thread count {c} to count the threads of {term}")
        return int(counts[c])

    if isinstance(term, Component):
        return 1
    if isinstance(term, Pipe):
        return threads_used(term.first, counts) + threads_used(term.second, counts)
    if isinstance(term, Seq):
        return max(threads_used(term.first, counts), threads_used(term.second, counts))
    if isinstance(term, TPool):
        return count(term.threads) * threads_used(term.body, counts)
    if isinstance(term, MapReduce):
        return count(term.m) * count(term.n)
    return 1


def symbolic_counts(term: Term) -> tuple[str, ...]:
    """The names a term itself introduces: symbolic thread and node counts (``tpool_n``,
    ``mapreduce(m=m, n=n, ...)``) and the parameters of a MapReduce's key expressions."""
    names: list[str] = []
    for t in term.walk():
        if isinstance(t, TPool) and isinstance(t.threads, str):
            names.append(t.threads)
        if isinstance(t, (MapReduce, Shuffle)):
            names += [c for c in (t.m, t.n) if isinstance(c, str)]
            exprs = (t.keys, t.per_key) if isinstance(t, MapReduce) else (t.keys,)
            names += sorted(s.name for e in exprs for s in e.free_symbols)
    return tuple(dict.fromkeys(names))


def flatten(term: Term, kind: type) -> list[Term]:
    """The operands of a left-nested chain of one binary pattern, as the n-ary sugar writes it."""
    if isinstance(term, kind):
        return flatten(term.first, kind) + [term.second]  # type: ignore[attr-defined]
    return [term]


def seq(*terms: Term | str) -> Term:
    """``seq(a, b, c)`` = ``seq(seq(a, b), c)``; strings name components."""
    return nest(Seq, terms)


def pipe(*terms: Term | str) -> Term:
    """``pipe(a, b, c)`` = ``pipe(pipe(a, b), c)`` (the operator is associative, law (i))."""
    return nest(Pipe, terms)


def tpool(threads: Count, body: Term | str) -> TPool:
    """``tpool_n(body)``."""
    return TPool(threads, _term(body))


def _term(t: Term | str) -> Term:
    return Component(t) if isinstance(t, str) else t


def nest(kind: type, terms: Sequence[Term | str], pos: Position | None = None) -> Term:
    """The left-nested chain of a binary pattern over ``terms``, every node at ``pos``."""
    if len(terms) < 2:
        raise ValueError(f"{kind.__name__.lower()} needs at least two terms")
    out = _term(terms[0])
    for t in terms[1:]:
        out = kind(out, _term(t), pos=pos)
    return out
