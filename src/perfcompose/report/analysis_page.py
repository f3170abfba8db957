"""The page of ``perfcompose analyze``: per metric the call tree (each caller opens and closes),
the ranking of growing call paths, and each caller's composition beside its fit."""
from __future__ import annotations

from collections.abc import Sequence

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
from perfcompose.report.document import Node, Report, Section, Text, Tree, table


def _tree(node: CallNode, unit: str, level: float, growing: set[str]) -> Node:
    return Node(node.region, node_cell(node, unit, level),
                tuple(_tree(c, unit, level, growing) for c in node.children), emphasis=node.path in growing)


def metric_section(metric: MetricAnalysis, analysis: Analysis) -> Section:
    unit = f" [{metric.unit}]" if metric.unit else ""
    growing = {r.path for r in metric.ranking if r.growth is not None and r.growth > 1}
    blocks: list = [Text(metric.note),
                    Tree(f"call tree of {metric.metric} at {point_cell(analysis.target)}",
                         _tree(metric.root, metric.unit, analysis.level, growing), collapsible=True),
                    table("call paths by growth of their share of the root", RANKING_COLUMNS,
                          [ranking_row(k, r) for k, r in enumerate(metric.ranking, 1)],
                          note=f"share of the root at the largest measured point ({point_cell(analysis.largest)}) "
                               "and at the target; growth by parameter: only that parameter moved to the target. "
                               "Marked in the tree: the call paths whose share grows.",
                          numeric=RANKING_NUMERIC)]
    callers = [(n, n.composition) for n in metric.root.walk() if n.composition is not None]
    if callers:
        blocks.append(table("each caller composed as seq(own, callees) beside its fit",
                            composition_columns(metric.unit),
                            [composition_row(n, c) for n, c in callers],
                            note=f"{analysis.holdout}. A caller disagrees where the two differ by more than "
                                 f"{share_cell(analysis.threshold)} at the target.",
                            numeric=COMPOSITION_NUMERIC))
    return Section(f"{metric.metric}{unit}", tuple(blocks))


def analysis_report(analysis: Analysis, commands: Sequence[str] = ()) -> Report:
    """The page of an :class:`~perfcompose.analyze.result.Analysis`."""
    summary = (("profile", analysis.source), ("parameters", ", ".join(analysis.parameters)),
               ("target", point_cell(analysis.target)), ("largest measured point", point_cell(analysis.largest)),
               ("intervals", f"{round(100 * analysis.level)} %"), ("held out", analysis.holdout),
               ("metrics", ", ".join(m.metric for m in analysis.metrics)))
    return Report(f"Whole-profile analysis of {analysis.source}", "analyze",
                  tuple(metric_section(m, analysis) for m in analysis.metrics), summary, tuple(commands))
