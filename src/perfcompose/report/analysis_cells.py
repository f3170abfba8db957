"""The cells of ``perfcompose analyze``'s outputs: one spelling of every number, shared by the
text, the page and what the tests read back from both.

>>> from perfcompose.analyze.result import Estimate
>>> value_cell(Estimate(61996.7, 61785.8, 63280.7)), interval_cell(Estimate(61996.7, 61785.8, 63280.7))
('62000', '61790 .. 63280')
>>> share_cell(0.4666), growth_cell(1.1562)
('46.7 %', '1.156x')
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from perfcompose.analyze.result import CallNode, Composition, Estimate, Ranked
from perfcompose.report.numbers import fit_quality, point, sig


def value_cell(est: Estimate | float | None) -> str:
    """A predicted value to four significant digits."""
    if est is None:
        return "-"
    return sig(est.value if isinstance(est, Estimate) else est, 4)


def interval_cell(est: Estimate) -> str:
    """The interval ``low .. high``; ``-`` for a model without one."""
    return "-" if est.low is None or est.high is None else f"{sig(est.low, 4)} .. {sig(est.high, 4)}"


def share_cell(share: float | None) -> str:
    return "-" if share is None else f"{sig(100 * share, 3)} %"


def growth_cell(growth: float | None) -> str:
    return "-" if growth is None else f"{sig(growth, 4)}x"


def percent_cell(v: float | None) -> str:
    return "-" if v is None else f"{sig(v, 3)} %"


def pairs_cell(pairs: Sequence[tuple[str, Any]], cell: Any = str) -> str:
    """``p: x, n: y`` for one value per parameter."""
    return ", ".join(f"{k}: {cell(v)}" for k, v in pairs)


def point_cell(pairs: Sequence[tuple[str, float]]) -> str:
    return point(dict(pairs))


def ranking_columns(unit: str, level: float) -> tuple[str, ...]:
    u = f" [{unit}]" if unit else ""
    return ("rank", "call path", "share at largest measured", "share at target", f"added to target{u}",
            f"{round(100 * level)} % interval{u}", "growth", "growth by parameter", "order by parameter",
            "grows faster than the run in")


RANKING_NUMERIC = (True, False, True, True, True, True, True, False, False, False)


def ranking_row(k: int, r: Ranked) -> tuple[str, ...]:
    # the call path, and how many callers that merely wrap it were folded into its entry
    path = r.path + (f" (wrapped by {len(r.collapsed)} caller(s) with the same values)" if r.collapsed else "")
    return (str(k), path, share_cell(r.share_measured), share_cell(r.share_target), value_cell(r.added),
            interval_cell(r.added), growth_cell(r.growth), pairs_cell(r.growth_by_parameter, growth_cell),
            pairs_cell(r.orders), ", ".join(r.faster_than_root) or "-")


def composition_columns(unit: str) -> tuple[str, ...]:
    u = f" [{unit}]" if unit else ""
    return ("call path", "composition", f"composed at target{u}", f"fitted at target{u}", "difference",
            "held-out error: fitted", "composed", "kept", "why")


COMPOSITION_NUMERIC = (False, False, True, True, True, True, True, False, False)


def composition_row(node: CallNode, c: Composition) -> tuple[str, ...]:
    return (node.path + (" (disagree)" if c.disagrees else ""), c.term, value_cell(c.at_target),
            value_cell(c.fitted_at_target), "-" if c.difference is None else f"{100 * c.difference:+.1f} %",
            percent_cell(c.heldout_fitted),
            percent_cell(c.heldout_composed), c.kept, c.reason)


def node_cell(node: CallNode, unit: str, level: float) -> str:
    """What the outputs show beside a call path's region: value, interval, shares, model, fit quality."""
    parts = [f"{value_cell(node.at_target)} {unit}".strip()]
    if node.at_target.low is not None:
        parts.append(f"{round(100 * level)} %: {interval_cell(node.at_target)}")
    if node.share_of_parent is not None:
        parts.append(f"{share_cell(node.share_of_parent)} of caller")
    parts += [f"{share_cell(node.share_of_root)} of run", f"{node.source}: {node.model}"]
    if node.beside:
        parts.append(f"{node.beside}, not summed into its caller")
    if node.fitted is not None:
        parts.append(f"fit quality {fit_quality(dict(node.quality))}")
    if not node.measured:
        parts.append("not measured")
    return " · ".join(parts)
