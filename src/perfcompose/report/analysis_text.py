"""The text output of ``perfcompose analyze``: per metric the ranking and the disagreeing callers,
and for a small profile or on request the call tree and every composition."""
from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.markup import escape
from rich.text import Text
from rich.tree import Tree

from perfcompose.analyze.analysis import NEGLIGIBLE
from perfcompose.analyze.result import Analysis, CallNode, MetricAnalysis
from perfcompose.report.analysis_cells import (
    COMPOSITION_NUMERIC,
    RANKING_NUMERIC,
    composition_columns,
    composition_row,
    node_cell,
    point_cell,
    ranking_columns,
    ranking_row,
    share_cell,
)
from perfcompose.report.tables import ResultTable as Table

#: ranked call paths shown in the text (all are in --json and --html)
TOP = 10
#: call paths up to which the text shows the call tree and every composition unless told otherwise
TREE_LIMIT = 50


def node_label(node: CallNode, unit: str, level: float) -> str:
    """One line per call path: its region, then what :func:`node_cell` shows."""
    return f"{node.region} · {node_cell(node, unit, level)}"


def call_tree(node: CallNode, unit: str, level: float, parent: Tree | None = None) -> Tree:
    """``node`` and the call paths below it as a Rich tree (added to ``parent`` where given)."""
    label = Text(node_label(node, unit, level))
    branch = Tree(label, guide_style="dim") if parent is None else parent.add(label)
    for child in node.children:
        call_tree(child, unit, level, branch)
    return branch


def _table(title: str, columns: tuple[str, ...], rows: list[tuple[str, ...]], numeric: tuple[bool, ...]) -> Any:
    table = Table(*columns, title=title, right=[k for k, right in enumerate(numeric) if right])
    for r in rows:
        table.add_row(*(escape(c) for c in r))
    return table


def metric_text(metric: MetricAnalysis, analysis: Analysis, top: int = TOP, tree: bool | None = None) -> Group:
    """The ranking of one metric, and its call tree and compositions where ``tree`` asks for them
    (None: where the profile has at most :data:`TREE_LIMIT` call paths); without the tree only
    the disagreeing compositions, at most ``top`` of them."""
    unit = f" [{metric.unit}]" if metric.unit else ""
    nodes = list(metric.walk())
    whole = len(nodes) <= TREE_LIMIT if tree is None else tree
    stated = "" if metric.unit else " (the input states no unit)"
    parts: list[Any] = [Text(f"{metric.metric}{unit} at {point_cell(analysis.target)}{stated}: {metric.note}",
                             style="bold")]
    if whole:
        parts.extend(call_tree(r, metric.unit, analysis.level) for r in metric.roots)
    else:
        run = node_label(metric.root, metric.unit, analysis.level)
        parts.append(Text(f"{len(nodes)} call paths; the run: {run}. The call tree: --tree, --html or --json."))
    shown = metric.ranking[:top]
    counted = sum(r.share_target >= NEGLIGIBLE for r in metric.ranking)
    parts.append(_table(f"{metric.metric}: call paths by the time they add from the largest measured point "
                        f"({point_cell(analysis.largest)}) to the target; {counted} of {len(metric.ranking)} at "
                        f"{share_cell(NEGLIGIBLE)} of the run or more at the target come first",
                        ranking_columns(metric.unit, analysis.level),
                        [ranking_row(k, r) for k, r in enumerate(shown, 1)], RANKING_NUMERIC))
    callers = [(n, n.composition) for n in nodes if n.composition is not None]
    if callers:
        disagree = sum(c.disagrees for _, c in callers)
        listed = callers if whole else [(n, c) for n, c in callers if c.disagrees][:top]
        # the reason for each choice is a sentence: printed under the table, not squeezed into a column
        columns, numeric = composition_columns(metric.unit)[:-1], COMPOSITION_NUMERIC[:-1]
        title = (f"{metric.metric}: each caller composed as seq(own, callees) beside its fit; "
                 f"{disagree} of {len(callers)} disagree by more than {share_cell(analysis.threshold)}")
        if not whole:
            title += f" (shown: {len(listed)} of them)"
        parts.append(_table(title, columns, [composition_row(n, c)[:-1] for n, c in listed], numeric))
        parts.extend(Text(f"  {n.path}: {c.kept} kept, {c.reason}") for n, c in listed)
    return Group(*parts)


def analysis_text(analysis: Analysis, top: int = TOP, tree: bool | None = None) -> Group:
    """Everything the text output shows, as one rich renderable (``tree``: see :func:`metric_text`)."""
    head = Text(f"{analysis.source}: parameters {', '.join(analysis.parameters)}; "
                f"target {point_cell(analysis.target)}; "
                f"largest measured point {point_cell(analysis.largest)}; {round(100 * analysis.level)} % intervals; "
                f"held out: {analysis.holdout}")
    return Group(head, *(metric_text(m, analysis, top, tree) for m in analysis.metrics))
