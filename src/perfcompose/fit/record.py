"""The JSON record of a fit (``perfcompose fit --json``, read by compose.components): one per
region and metric, ``"format": "perfcompose-fit/1"``, with the model, its text, statistics (NaN
as null), the split of a segmented fit, warnings, aggregate and notes; an unfitted series has
``"model": null`` and the reason under ``"skipped"``."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from perfcompose.model import FIT_FORMAT


def fit_to_json(result: Any, aggregate: str | None = None, notes: Sequence[str] = ()) -> dict[str, Any]:
    """The record of a :class:`~perfcompose.fit.pmnf.FitResult` or a
    :class:`~perfcompose.fit.segmented.SegmentedFit`, fitted to the ``aggregate`` of repetitions."""
    model = result.model
    segmented = hasattr(result, "segmented")
    text = result.describe() if segmented else model.to_extrap(digits=6)
    record: dict[str, Any] = {"format": FIT_FORMAT, "region": result.region, "metric": result.metric,
                              "unit": model.unit, "model": model.to_json(), "text": text,
                              **{k: (v if v == v else None) for k, v in result.stats.items()}}
    if segmented:
        record["segmented"] = result.segmented
        record["breakpoint"] = result.breakpoint if result.segmented else None
    record["warnings"] = list(result.warnings)
    return _with(record, aggregate, notes)


def skipped_to_json(skipped: Any, aggregate: str | None = None, notes: Sequence[str] = ()) -> dict[str, Any]:
    """The record of a series left unfitted (:class:`~perfcompose.fit.usable.Skipped`): no model, and why."""
    record = {"format": FIT_FORMAT, "region": skipped.region, "metric": skipped.metric, "unit": skipped.unit,
              "model": None, "skipped": skipped.reason, "warnings": []}
    return _with(record, aggregate, notes)


def _with(record: dict[str, Any], aggregate: str | None, notes: Sequence[str]) -> dict[str, Any]:
    if aggregate is not None:
        record["aggregate"] = aggregate
    if notes:
        record["notes"] = list(notes)
    return record
