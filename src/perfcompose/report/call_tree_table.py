"""An analysis as a table of call paths: per metric and call path the kept model, its source, fit
quality, value and interval at the target, share and rank. As CSV (``analyze --table``), or as a
pandas frame indexed by the nodes of a Hatchet GraphFrame or Thicket, a column per metric and
field (``Avg time/rank_perfcompose-model``, as Thicket names model columns), joined into its
statsframe."""
from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from perfcompose.analyze import Analysis

#: the fields of a row after its metric and call path
FIELDS: tuple[str, ...] = ("unit", "model", "source", "smape", "adj_r2", "value", "low", "high", "share", "rank")
#: the prefix of a field's column in a Thicket's or GraphFrame's frame
PREFIX = "perfcompose-"


def rows(analysis: Analysis) -> Iterator[dict[str, Any]]:
    """Each metric's call paths as rows (see the module)."""
    for metric in analysis.metrics:
        rank = {r.path: k for k, r in enumerate(metric.ranking, 1)}
        for node in metric.root.walk():
            quality = dict(node.quality)
            yield {"metric": metric.metric, "call path": node.path, "unit": metric.unit, "model": node.model,
                   "source": node.source, "smape": quality.get("smape"), "adj_r2": quality.get("adj_r2"),
                   "value": node.at_target.value, "low": node.at_target.low, "high": node.at_target.high,
                   "share": node.share_of_root, "rank": rank.get(node.path)}


def write_csv(analysis: Analysis, path: Path) -> Path:
    """The table as CSV, with a header naming the target point (``smape`` in per cent, ``share``
    a fraction of the program at the target, ``value``, ``low`` and ``high`` in ``unit``)."""
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, ["metric", "call path", *FIELDS], lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows(analysis))
    return path


def join(analysis: Analysis, frames: Any) -> Any:
    """The table as a pandas frame indexed by the nodes of ``frames`` (a Hatchet GraphFrame or a
    Thicket): one column per metric and field; a Thicket also gets the columns in its statsframe.

    >>> table = join(analyze(from_thicket(tk), {"p": 4096}), tk)  # doctest: +SKIP
    >>> tk.statsframe.dataframe["Avg time/rank_perfcompose-model"]  # doctest: +SKIP
    """
    import pandas as pd

    from perfcompose.data.hatchet_runs import call_paths

    by_path: dict[str, dict[str, Any]] = {}
    for row in rows(analysis):
        cells = by_path.setdefault(row["call path"], {})
        cells.update({f"{row['metric']}_{PREFIX}{k}": row[k] for k in FIELDS})
    paths = call_paths(frames.graph)
    nodes = [n for n in paths if paths[n] in by_path]
    table = pd.DataFrame([by_path[paths[n]] for n in nodes], index=pd.Index(nodes, name="node"))
    stats = getattr(frames, "statsframe", None)
    if stats is not None:
        kept = stats.dataframe.drop(columns=[c for c in table.columns if c in stats.dataframe.columns])
        stats.dataframe = kept.join(table, how="left")
    return table
