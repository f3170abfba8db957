"""What a prediction of a designed program found, as frozen values every renderer reads.

:func:`perfcompose.compose.prediction.predict` fills a :class:`Prediction` once; the console
tables, the JSON record, the HTML page and the plot (:mod:`perfcompose.report`) read its fields
and compute nothing that needs the composer, so a renderer knows models and numbers, never
compose/ or the command.

>>> PointPrediction({"x": 1024.0}, 2.5).value
2.5
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from perfcompose.ensemble import DEFAULT_LEVEL
from perfcompose.model import Model

__all__ = ["PREDICTION_FORMAT", "ComponentValue", "MeasuredSeries", "PartPrediction", "PointPrediction", "Prediction",
           "TermNode"]

#: the ``format`` of a prediction's JSON record (``predict --json``), which ``-c NAME=FILE`` reads back
PREDICTION_FORMAT = "perfcompose-prediction/1"


@dataclass(frozen=True)
class ComponentValue:
    """One component's time per data element at a point, in the prediction's unit."""

    name: str
    value: float
    unit: str
    source: str


@dataclass(frozen=True)
class PointPrediction:
    """The predicted time at one point, its interval where known, the pointwise max where the
    asymptotic rule dropped a stage, the bottleneck path and every component's time."""

    point: Mapping[str, float]
    value: float
    low: float | None = None
    high: float | None = None
    exact: float | None = None
    bottleneck: tuple[str, ...] = ()
    components: tuple[ComponentValue, ...] = ()


@dataclass(frozen=True)
class PartPrediction:
    """A component the program uses: its model in the prediction's unit, its model as the design
    gives it (with its unit and fit statistics), its source, and the medians it was fitted to
    where it was fitted from a file of one parameter (x, value in the prediction's unit)."""

    name: str
    model: Model
    own: Model
    source: str | None
    measured: tuple[tuple[float, float], ...] = ()


@dataclass(frozen=True)
class TermNode:
    """A node of the program's term: its label (``pipe``, ``tpool_4``, a component's name), the
    term as printed, its time per element at the largest point (None where it cannot be
    evaluated alone), a component's source, and its children (nested pipes and seqs flattened)."""

    label: str
    text: str
    time: float | None
    source: str | None = None
    children: tuple[TermNode, ...] = ()


@dataclass(frozen=True)
class MeasuredSeries:
    """Measurements of the program set against the prediction: per x the measured median and the
    predicted value, both in the prediction's unit."""

    label: str
    x: tuple[float, ...]
    measured: tuple[float, ...]
    predicted: tuple[float, ...]


@dataclass(frozen=True)
class Prediction:
    """Everything ``predict`` found for a program over the points asked for."""

    #: the program's term as printed
    program: str
    #: the size parameter (``x``)
    size: str
    #: the rule of the pipeline's max: ``pointwise`` or ``asymptotic``
    pipe: str
    #: the prediction: the operators' model with its interval, floored where workers share cores
    model: Model
    #: the operators' model alone
    operators: Model
    points: tuple[PointPrediction, ...]
    parts: tuple[PartPrediction, ...]
    tree: TermNode
    #: the order of the prediction in the size (``O(x log2(x))``, ``O(1)``, ``not PMNF``)
    order: str = "not PMNF"
    #: the composed model as an expression over the components' names; None where it has none
    structure: Model | None = None
    parameters: Mapping[str, float] = field(default_factory=dict)
    #: the pointwise max, where the asymptotic rule dropped a stage that is larger at a point
    exact: Model | None = None
    #: where the asymptotic rule dropped the larger stage (one text per pipe)
    warnings: tuple[str, ...] = ()
    #: where the program starts more workers than the machine has cores: what that means
    shared_cores: str | None = None
    #: the cores of the machine the prediction was made on, and the workers the program starts
    #: (None where a count is symbolic or a MapReduce's)
    cores: int = 0
    workers: int | None = None
    #: what the design file left to defaults or kept symbolic
    notes: tuple[str, ...] = ()
    measured: MeasuredSeries | None = None
    title: str = ""
    design: Path | None = None
    level: float = DEFAULT_LEVEL

    @property
    def unit(self) -> str:
        return self.model.unit

    @property
    def cores_text(self) -> str:
        """The cores the prediction assumes, as the outputs say it."""
        started = "" if self.workers is None else f"the program starts {self.workers} worker" + \
            ("s" if self.workers != 1 else "") + "; "
        over = self.workers is not None and self.workers > self.cores
        return (f"{started}the operators assume a core per worker; this machine has {self.cores} cores"
                + (", so the prediction counts them sharing the cores" if over else ""))
