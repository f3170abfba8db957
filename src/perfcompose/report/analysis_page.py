"""The page of ``perfcompose analyze``: per metric the call trees (each caller opens and closes),
the ranking of the call paths that add most time toward the target, a picture of how each of
the first of them scales, and each caller's composition beside its fit."""
from __future__ import annotations

from collections.abc import Sequence

from perfcompose.analyze.analysis import NEGLIGIBLE
from perfcompose.analyze.result import Analysis, CallNode, MetricAnalysis
from perfcompose.report.analysis_cells import (
    COMPOSITION_NUMERIC,
    RANKING_NUMERIC,
    composition_columns,
    composition_row,
    interval_cell,
    node_cell,
    point_cell,
    ranking_columns,
    ranking_row,
    share_cell,
    value_cell,
)
from perfcompose.report.analysis_plots import scaling_svg
from perfcompose.report.document import Block, Figure, Node, Report, Section, Text, Tree, table
from perfcompose.report.numbers import fit_quality

#: rows of the ranking, and regions of a flat profile, the page lists (--json holds all)
PAGE_ROWS = 100


def _regions(metric: MetricAnalysis, level: float) -> Block:
    """A flat profile's regions as a table, the largest at the target first."""
    u = f" [{metric.unit}]" if metric.unit else ""
    largest = sorted(metric.roots, key=lambda n: -n.at_target.value)[:PAGE_ROWS]
    return table(f"regions of {metric.metric}, largest at the target first",
                 ("region", f"at target{u}", f"{round(100 * level)} % interval{u}", "share of the run", "model",
                  "fit quality"),
                 [(n.region, value_cell(n.at_target), interval_cell(n.at_target), share_cell(n.share_of_root),
                   f"{n.source}: {n.model}", fit_quality(dict(n.quality))) for n in largest],
                 note=f"{len(largest)} of {len(metric.roots)} regions; the profile names no callers, so their "
                      "nesting is unknown and none is summed (--json holds every region)",
                 numeric=(False, True, True, True, False, False))


def _tree(node: CallNode, unit: str, level: float, top: set[str]) -> Node:
    return Node(node.region, node_cell(node, unit, level),
                tuple(_tree(c, unit, level, top) for c in node.children), emphasis=node.path in top)


def metric_section(metric: MetricAnalysis, analysis: Analysis) -> Section:
    unit = f" [{metric.unit}]" if metric.unit else " (the input states no unit)"
    top = {r.path for r in metric.ranking if r.share_target >= NEGLIGIBLE and r.added.value > 0}
    blocks: list[Block] = [Text(metric.note)]
    if len(metric.roots) > 1 and not any(r.children for r in metric.roots):
        blocks.append(_regions(metric, analysis.level))
    else:
        blocks += [Tree(f"call tree of {metric.metric} at {point_cell(analysis.target)}"
                        + (f" ({r.region})" if len(metric.roots) > 1 else ""),
                        _tree(r, metric.unit, analysis.level, top), collapsible=True) for r in metric.roots]
    shown = metric.ranking[:PAGE_ROWS]
    blocks.append(table("call paths by the time they add from the largest measured point to the target",
                        ranking_columns(metric.unit, analysis.level),
                        [ranking_row(k, r) for k, r in enumerate(shown, 1)],
                        note=f"the first {len(shown)} of {len(metric.ranking)} (--json holds all). "
                             f"Share of the run ({metric.run}) at the largest measured point "
                             f"({point_cell(analysis.largest)}) and at the target; call paths below "
                             f"{share_cell(NEGLIGIBLE)} of the run at the target follow the others. Growth by "
                             "parameter: only that parameter moved to the target. Marked in the tree: the call "
                             "paths that add time and hold 1 % of the run or more.",
                        numeric=RANKING_NUMERIC))
    kept = {n.path: n.source for n in metric.walk()}
    blocks += [Figure(f"{k}. {p.path}", scaling_svg(p, metric.unit, analysis.level, kept[p.path]),
                      f"measured medians, the kept model with its {round(100 * analysis.level)} % interval out to "
                      "the target, and for a caller the other of its fitted and composed models")
               for k, p in enumerate(metric.pictures, 1)]
    callers = [(n, n.composition) for n in metric.walk() if n.composition is not None]
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
