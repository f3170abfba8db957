"""What ``perfcompose analyze`` computes, as plain frozen values that every output renders: per
metric the call tree (:class:`CallNode`, callers with the :class:`Composition` of their callees),
the call paths ranked by the time they add up to the target (:class:`Ranked`) and the scaling of
the first (:class:`Picture`); ``to_json`` and ``from_json`` round-trip it."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from typing import Any

Pairs = tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class Estimate:
    """A predicted value and its interval (None where the model carries no uncertainty)."""

    value: float
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class Composition:
    """A caller's inclusive model composed from its own and its callees': ``difference`` is
    (composed - fitted) / fitted at the target, the held-out errors mean relative errors (per cent);
    ``kept`` says which model the node keeps and ``reason`` why."""

    term: str
    model: str
    own_model: str | None
    at_target: Estimate
    fitted_at_target: float | None
    difference: float | None
    disagrees: bool
    heldout_fitted: float | None
    heldout_composed: float | None
    heldout_points: int
    kept: str
    reason: str


@dataclass(frozen=True)
class CallNode:
    """One call path: its kept inclusive model and what the model says at the target."""

    path: str
    region: str
    measured: bool
    model: str
    source: str
    fitted: str | None
    quality: Pairs
    at_target: Estimate
    at_largest: float
    share_of_parent: float | None
    share_of_root: float
    share_of_root_measured: float
    orders: Pairs
    composition: Composition | None
    children: tuple[CallNode, ...] = ()
    #: why the node runs beside its caller and is not summed into it ("" where it is summed)
    beside: str = ""

    def walk(self) -> Iterator[CallNode]:
        """This node and every node below it, callers before callees."""
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass(frozen=True)
class Ranked:
    """A call path's share of the run at the largest measured point and at the target, and the time
    it adds between them (``added``, with its interval); ``growth``: the ratio of the shares (per
    parameter moved alone: ``growth_by_parameter``); ``faster_than_root``: the parameters where its
    order exceeds the run's; ``collapsed``: the callers folded into it (they merely wrap it)."""

    path: str
    share_measured: float
    share_target: float
    added: Estimate
    growth: float | None
    growth_by_parameter: Pairs
    orders: Pairs
    faster_than_root: tuple[str, ...]
    collapsed: tuple[str, ...] = ()


@dataclass(frozen=True)
class Picture:
    """How one call path scales along ``parameter`` (the others at ``fixed``, their target values):
    its measured medians (at the others' measured values nearest the target), and on ``grid``, out to the
    target, the kept model with its interval and, for a caller, the fitted and the composed
    model."""

    path: str
    parameter: str
    fixed: Pairs
    measured_x: tuple[float, ...]
    measured_y: tuple[float, ...]
    grid: tuple[float, ...]
    kept: tuple[float, ...]
    low: tuple[float, ...]
    high: tuple[float, ...]
    fitted: tuple[float, ...]
    composed: tuple[float, ...]


@dataclass(frozen=True)
class MetricAnalysis:
    """The call trees of one metric (``roots``; the node ``run`` stands for the whole run), its
    ranking and the pictures of its first-ranked call paths; ``note`` says how inclusive and
    exclusive values were obtained."""

    metric: str
    unit: str
    note: str
    roots: tuple[CallNode, ...]
    run: str
    ranking: tuple[Ranked, ...]
    pictures: tuple[Picture, ...] = ()

    @property
    def root(self) -> CallNode:
        """The node that stands for the run."""
        return next(r for r in self.roots if r.path == self.run)

    def walk(self) -> Iterator[CallNode]:
        """Every node of every tree, callers before callees."""
        for r in self.roots:
            yield from r.walk()

    def disagreements(self) -> list[CallNode]:
        """The callers whose composed and fitted models disagree at the target."""
        return [n for n in self.walk() if n.composition is not None and n.composition.disagrees]


@dataclass(frozen=True)
class Analysis:
    """The whole profile analysed at one target point.

    >>> a = Analysis("p.txt", ("p",), (("p", 64.0),), (("p", 8.0),), 0.9, 0.1, "none", ())
    >>> Analysis.from_json(a.to_json()) == a
    True
    """

    source: str
    parameters: tuple[str, ...]
    target: Pairs
    largest: Pairs
    level: float
    threshold: float
    holdout: str
    metrics: tuple[MetricAnalysis, ...]

    def to_json(self) -> dict[str, Any]:
        """The analysis as JSON values (pairs become objects, tuples lists)."""
        return _to_json(self)

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> Analysis:
        """Read back what :meth:`to_json` wrote."""
        return _from_json(cls, record)


_PAIRS = {"target", "largest", "quality", "orders", "growth_by_parameter", "fixed"}
_NESTED: dict[str, Any] = dict(at_target=Estimate, added=Estimate, composition=Composition, children=CallNode,
                               roots=CallNode, ranking=Ranked, pictures=Picture, metrics=MetricAnalysis)
_FIELDS: dict[type, tuple[str, ...]] = {}


def _to_json(value: Any, name: str = "") -> Any:
    if value is None or isinstance(value, (str, float, int)):
        return value
    kind = type(value)
    names = _FIELDS.get(kind)
    if names is None and hasattr(value, "__dataclass_fields__"):
        names = _FIELDS[kind] = tuple(f.name for f in fields(value))
    if names is not None:
        return {n: _to_json(getattr(value, n), n) for n in names}
    if name in _PAIRS:
        return {k: v for k, v in value}
    return [_to_json(v) for v in value] if isinstance(value, tuple) else value


def _from_json(cls: Any, record: Mapping[str, Any]) -> Any:
    return cls(**{f.name: _field_from_json(f.name, record[f.name]) for f in fields(cls)})


def _field_from_json(name: str, raw: Any) -> Any:
    kind = _NESTED.get(name)
    if name in _PAIRS:
        return tuple(raw.items())
    if kind is not None and raw is not None:
        return tuple(_from_json(kind, r) for r in raw) if isinstance(raw, list) else _from_json(kind, raw)
    return tuple(raw) if isinstance(raw, list) else raw
