"""The JSON record of a fit, as ``perfcompose fit --json`` writes it and compose.components reads it.

One record per region and metric, tagged ``"format": "perfcompose-fit/1"``: region, metric, unit,
the model (:meth:`Model.to_json`), its text, the fit statistics (NaN written as null), for a
segmented fit whether and where the model is split, and the warnings.
"""
from __future__ import annotations

from typing import Any

from perfcompose.model import FIT_FORMAT


def fit_to_json(result: Any) -> dict[str, Any]:
    """The record of a :class:`~perfcompose.fit.pmnf.FitResult` or a
    :class:`~perfcompose.fit.segmented.SegmentedFit`."""
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
    return record
