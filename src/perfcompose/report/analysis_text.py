"""The text output of ``perfcompose analyze``: per metric the call tree with each call path's
value, interval, shares and model, the call paths whose share grows most, and every caller's
composition beside its fit."""
from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.markup import escape
from rich.text import Text
from rich.tree import Tree

from perfcompose.analyze.result import Analysis, CallNode, MetricAnalysis
from perfcompose.report.analysis_cells import (
    COMPOSITION_NUMERIC,
    RANKING_COLUMNS,
    RANKING_NUMERIC,
    composition_columns,
    composition_row,
    node_cell,
    point_cell,
    ranking_row,
    share_cell,
)
from perfcompose.report.tables import ResultTable as Table

#: ranked call paths shown in the text (all are in --json and --html)
TOP = 10


def node_label(node: CallNode, unit: str, level: float) -> str:
    """One line per call path: its region, then what :func:`node_cell` shows."""
    return f"{node.region} · {node_cell(node, unit, level)}"


def call_tree(metric: MetricAnalysis, level: float) -> Tree:
    def add(parent: Any, node: CallNode) -> None:
        branch = parent.add(Text(node_label(node, metric.unit, level)))
        for child in node.children:
            add(branch, child)

    tree = Tree(Text(node_label(metric.root, metric.unit, level)), guide_style="dim")
    for child in metric.root.children:
        add(tree, child)
    return tree


def _table(title: str, columns: tuple[str, ...], rows: list[tuple[str, ...]], numeric: tuple[bool, ...]) -> Any:
    table = Table(title=title)
    for c, right in zip(columns, numeric):
        table.add_column(c, justify="right" if right else "left")
    for r in rows:
        table.add_row(*(escape(c) for c in r))
    return table


def metric_text(metric: MetricAnalysis, analysis: Analysis, top: int = TOP) -> Group:
    """The call tree, ranking and compositions of one metric."""
    unit = f" [{metric.unit}]" if metric.unit else ""
    parts: list[Any] = [Text(f"{metric.metric}{unit} at {point_cell(analysis.target)}: {metric.note}", style="bold")]
    parts.append(call_tree(metric, analysis.level))
    growing = [r for r in metric.ranking if r.growth is not None and r.growth > 1]
    shown = metric.ranking[:top]
    parts.append(_table(f"{metric.metric}: call paths by growth of their share of the root, largest measured point "
                        f"({point_cell(analysis.largest)}) to target; {len(growing)} of {len(metric.ranking)} grow",
                        RANKING_COLUMNS, [ranking_row(k, r) for k, r in enumerate(shown, 1)], RANKING_NUMERIC))
    callers = [(n, n.composition) for n in metric.root.walk() if n.composition is not None]
    if callers:
        disagree = sum(c.disagrees for _, c in callers)
        # the reason for each choice is a sentence: printed under the table, not squeezed into a column
        columns, numeric = composition_columns(metric.unit)[:-1], COMPOSITION_NUMERIC[:-1]
        parts.append(_table(f"{metric.metric}: each caller composed as seq(own, callees) beside its fit; "
                            f"{disagree} of {len(callers)} disagree by more than {share_cell(analysis.threshold)}",
                            columns, [composition_row(n, c)[:-1] for n, c in callers], numeric))
        parts.extend(Text(f"  {n.path}: {c.kept} kept, {c.reason}") for n, c in callers)
    return Group(*parts)


def analysis_text(analysis: Analysis, top: int = TOP) -> Group:
    """Everything the text output shows, as one rich renderable."""
    head = Text(f"{analysis.source}: parameters {', '.join(analysis.parameters)}; "
                f"target {point_cell(analysis.target)}; "
                f"largest measured point {point_cell(analysis.largest)}; {round(100 * analysis.level)} % intervals; "
                f"held out: {analysis.holdout}")
    return Group(head, *(metric_text(m, analysis, top) for m in analysis.metrics))
