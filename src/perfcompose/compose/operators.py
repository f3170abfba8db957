"""Composition: a term and the models of its components made into the model of the program.

``compose(term, components)`` decomposes a term down to its components and applies the operators
bottom up; every result is a :class:`~perfcompose.model.Model`, symbolic in x and in any thread
or node count left symbolic. Components are converted to one time unit, and a parameter name
that would mean two things (an input size here, a thread count there) is refused.

What each kind of term means (its operands, M[.] by the operators of 000 and 003, the workers it
starts, the work they do, where its bottleneck lies) is one entry of
:data:`perfcompose.compose.kinds.KINDS`. :meth:`Composer.evaluate` is the composition
pass: one fold of a term into a frozen :class:`Evaluated` tree, a node per subterm with its model
and what the pipe rule chose there, and beside it the models of other composers folded in the
same pass (:class:`Lane`: a prediction's interval members, its pointwise max).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from perfcompose.choices import PIPE_RULES, PipeRule
from perfcompose.compose.kinds import KINDS, pipe_model
from perfcompose.compose.parser import TermSyntaxError, known_components_hint, parse_term
from perfcompose.compose.terms import Component, MapReduce, Pipe, Seq, Term
from perfcompose.errors import ModelError, PerfcomposeError
from perfcompose.model import Model
from perfcompose.units import merge_roles, seconds_per

#: the pipeline rule of every user-facing prediction: the exact max never loses a stage
DEFAULT_PIPE: PipeRule = "pointwise"

__all__ = ["DEFAULT_PIPE", "Composer", "Evaluated", "Lane", "PipeChoice", "PipeWarning", "compose"]


@dataclass(frozen=True)
class PipeChoice:
    """What the pipeline operator made of one ``pipe(first, second)``: the stage it kept and,
    when the asymptotic max chose one stage, the stage it dropped (None when it kept both)."""

    term: Pipe
    kept: Term
    dropped: Term | None
    both: bool = False


@dataclass(frozen=True)
class PipeWarning:
    """A point where the asymptotic max dropped the stage that is the larger one there."""

    choice: PipeChoice
    point: Mapping[str, float]
    kept_value: float
    dropped_value: float
    unit: str

    def __str__(self) -> str:
        where = ", ".join(f"{k}={v:g}" for k, v in self.point.items())
        return (f"{self.choice.term}: the papers' asymptotic max keeps {self.choice.kept} (higher order in x), "
                f"but at {where} {self.choice.dropped} is larger ({self.dropped_value:.4g} vs "
                f"{self.kept_value:.4g} {self.unit}); the pointwise max keeps both (--pipe pointwise)")


def _at(model: Model, point: Mapping[str, float]) -> float:
    missing = [p for p in model.params if p not in point]
    if missing:
        raise ModelError(f"give a value for {', '.join(missing)} to evaluate {model.label}")
    return float(np.asarray(model(**{p: point[p] for p in model.params})))


@dataclass(frozen=True)
class Evaluated:
    """A term composed once: its label, its operands composed, its model, its model under each
    other composer folded in the same pass (:class:`Lane`; None where that one cannot compose
    it), what the pipe rule chose (a pipe) and the workers it starts (None: not counted)."""

    term: Term
    label: str
    children: tuple[Evaluated, ...]
    model: Model
    lanes: Mapping[str, Model | None] = field(default_factory=dict)
    choice: PipeChoice | None = None
    workers: int | None = None

    def walk(self) -> Iterator[Evaluated]:
        """This node and every node below it, depth first, left to right."""
        yield self
        for child in self.children:
            yield from child.walk()

    def parts(self, nested: bool = True) -> list[Evaluated]:
        """The operands, a seq's seqs and a pipe's pipes lifted to its level (``nested=False``:
        only the first operand's, as the n-ary sugar nests them)."""
        if type(self.term) not in (Seq, Pipe):
            return list(self.children)
        out: list[Evaluated] = []
        for k, child in enumerate(self.children):
            lift = type(child.term) is type(self.term) and (nested or k == 0)
            out += child.parts(nested) if lift else [child]
        return out

    def work(self, lane: str | None = None) -> Model | None:
        """The CPU time per element all the workers spend together (each component once per
        element: a pool spreads its elements), by the operators or by ``lane``."""
        own = self.model if lane is None else self.lanes[lane]
        return KINDS[type(self.term)].work(own, [c.work(lane) for c in self.children])

    def at(self, point: Mapping[str, float]) -> float:
        """The model's value at ``point``."""
        return _at(self.model, point)

    def bottleneck(self, point: Mapping[str, float]) -> tuple[tuple[Term, float], ...]:
        """The path down to the part that limits the term at ``point``: the slowest stage of each
        pipeline, the largest part of each sequence, the body of each task pool; each step with
        its time per element."""
        node, path = self, [(self.term, self.at(point))]
        while KINDS[type(node.term)].limited:
            parts = node.parts(nested=False)
            times = [p.at(point) for p in parts]
            k = int(np.argmax(times))
            node = parts[k]
            path.append((node.term, times[k]))
        return tuple(path)

    def pipe_warnings(self, points: Iterable[Mapping[str, float]], unit: str) -> list[PipeWarning]:
        """Where the asymptotic max dropped a stage that is the larger one at a point (the first
        such point per pipe)."""
        out, points = [], list(points)
        for node in self.walk():
            choice = node.choice
            if choice is not None and choice.dropped is not None:
                first, second = (c.model for c in node.children)
                kept, dropped = (first, second) if choice.kept == choice.term.first else (second, first)
                for point in points:
                    kv, dv = _at(kept, point), _at(dropped, point)
                    if dv > kv * (1 + 1e-9):
                        shown = {k: v for k, v in point.items() if k in kept.params or k in dropped.params}
                        out.append(PipeWarning(choice, shown or dict(point), kv, dv, unit))
                        break
        return out


@dataclass(frozen=True)
class Lane:
    """Another composer folded in the same pass as the operators: where ``follow``, a pipe the
    asymptotic rule decided is the stage it kept; where ``tolerant``, a term it cannot compose
    is None instead of an error."""

    name: str
    composer: Composer
    follow: bool = False
    tolerant: bool = False


@dataclass(frozen=True)
class Composer:
    """Applies M[.] to terms over a fixed set of component models.

    ``pipe`` chooses the pipeline operator (the exact pointwise max, the default, or the papers'
    asymptotic max); ``size`` names the parameter that grows (x), the input size. Components are
    converted to ``unit``, by default the unit of the first component that has one; a component
    without a unit next to timed ones is refused.
    """

    components: Mapping[str, Model]
    pipe: PipeRule = DEFAULT_PIPE
    size: str = "x"
    target_unit: str | None = None

    def __post_init__(self) -> None:
        if self.pipe not in PIPE_RULES:
            raise ModelError(f"pipe rule must be one of {', '.join(PIPE_RULES)}, got {self.pipe!r}")
        if self.target_unit:
            seconds_per(self.target_unit)

    @property
    def unit(self) -> str:
        if self.target_unit:
            return self.target_unit
        units = [m.unit for m in self.components.values() if m.unit]
        return units[0] if units else ""

    def parse(self, text: str, **where: object) -> Term:
        """Read a term whose component names must all be known here."""
        return parse_term(text, components=self.components, **where)  # type: ignore[arg-type]

    def leaf(self, term: Component) -> Model:
        if term.name not in self.components:
            pos = term.pos
            raise TermSyntaxError(f"unknown component '{term.name}'", line=pos.line if pos else None,
                                  column=pos.column if pos else None, hint=known_components_hint(self.components))
        model = self.components[term.name]
        if not model.name:
            model = model.with_meta(name=term.name)
        unit = self.unit
        if bool(model.unit) != bool(unit):
            timed = next(m for m in self.components.values() if m.unit) if unit else model
            raise ModelError(f"component {model.label} has no time unit, and {timed.label} is in {unit or timed.unit}: "
                             "give it one (unit = \"us\" in its component table, or --unit us)")
        model = model.in_unit(unit)
        if self.size in model.params:
            model = model.with_meta(roles=merge_roles(model.roles, {self.size: "size"}, first_name=model.label,
                                                      second_name=f"the design, where {self.size} is the input size"))
        return model

    def __call__(self, term: Term | str) -> Model:
        """The model of ``term`` (a Term or its text)."""
        if isinstance(term, str):
            term = self.parse(term)
        return self.model(term).with_meta(name=str(term), source="composed")

    def model(self, term: Term) -> Model:
        """M[term]: the composed model alone (:meth:`evaluate` keeps every subterm's)."""
        return self.evaluate(term).model

    def combine(self, term: Term, parts: Sequence[Model]) -> Model:
        """M[term] from the models of its operands (:data:`KINDS`)."""
        return KINDS[type(term)].model(self, term, parts)

    def choice(self, term: Pipe, first: Model, second: Model) -> PipeChoice | None:
        """What the asymptotic max made of ``pipe(first, second)``; None under the pointwise rule
        or where it kept the stage that is the max."""
        if self.pipe == "pointwise":
            return None
        result = pipe_model(first, second, self.pipe, self.size)
        if result == first and first != second:
            return PipeChoice(term, term.first, term.second)
        if result == second and first != second:
            return PipeChoice(term, term.second, term.first)
        return None if result == first else PipeChoice(term, term, None, both=True)

    def evaluate(self, term: Term, lanes: Sequence[Lane] = ()) -> Evaluated:
        """The composition pass: ``term`` folded bottom up into a tree of its subterms, each with
        its model by these operators and by every lane's composer."""
        def fold(t: Term) -> Evaluated:
            kind = KINDS.get(type(t))
            if kind is None:
                raise ModelError(f"cannot compose {type(t).__name__}")
            kind.check(t)
            children = tuple(fold(c) for c in kind.operands(t))
            model = self.combine(t, [c.model for c in children])
            choice = self.choice(t, children[0].model, children[1].model) if isinstance(t, Pipe) else None
            models: dict[str, Model | None] = {}
            for lane in lanes:
                parts = [c.lanes[lane.name] for c in children]
                if lane.follow and choice is not None and choice.dropped is not None:
                    models[lane.name] = children[0 if choice.kept == choice.term.first else 1].lanes[lane.name]
                elif any(p is None for p in parts):
                    models[lane.name] = None
                else:
                    try:
                        models[lane.name] = lane.composer.combine(t, parts)  # type: ignore[arg-type]
                    except (PerfcomposeError, KeyError):
                        if not lane.tolerant:
                            raise
                        models[lane.name] = None
            return Evaluated(t, kind.label(t), children, model, models, choice,
                             kind.workers(t, [c.workers for c in children]))

        return fold(term)

    def pipe_choices(self, term: Term) -> list[PipeChoice]:
        """What the pipeline operator kept and dropped in every pipe of ``term``."""
        return [n.choice for n in self.evaluate(term).walk() if n.choice is not None]

    def _shuffle_components(self, term: MapReduce) -> Mapping[str, Model]:
        name = term.shuffle.model
        if name is not None:
            self.leaf(Component(name, pos=term.pos))
        return self.components

    def spread(self, leaf: Callable[[Model], Model]) -> Composer:
        """These operators over ``leaf`` of every model they use, under the pointwise rule."""
        return dataclasses.replace(self, components={k: leaf(m) for k, m in self.components.items()},
                                   pipe="pointwise")

    def uses(self, term: Term) -> list[Model]:
        """The models composing ``term`` reads."""
        return [self.components[c] for c in term.components() if c in self.components]


def compose(term: Term | str, components: Mapping[str, Model], *, pipe: PipeRule = DEFAULT_PIPE,
            size: str = "x") -> Model:
    """The model of a program from the models of its components.

    >>> qsort = Model.parse("1034.17*x*log2(x)", unit="ns")
    >>> str(compose("tpool_4(qsort)", {"qsort": qsort}))
    '258.5425*x*log2(x)'
    """
    return Composer(components, pipe=pipe, size=size)(term)
