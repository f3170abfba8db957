"""The scaling of a ranked call path as inline SVG (medians, the kept model with its interval, a
caller's composed model), written directly: a millisecond each, where Matplotlib takes a second."""
from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from perfcompose.analyze.result import Picture
from perfcompose.report.numbers import point, sig

WIDTH, HEIGHT = 640, 300
#: the plotting area inside the figure: left, top, right, bottom
AREA = (70, 28, 440, 258)
COLORS = {"kept": "#1f77b4", "other": "#ff7f0e", "measured": "#000000"}


def _decades(low: float, high: float) -> list[float]:
    """Powers of 10 (or of 2, for a range under two decades) within [low, high], at most 8."""
    base = 10 if high / low >= 100 else 2
    first, last = math.ceil(math.log(low, base) - 1e-9), math.floor(math.log(high, base) + 1e-9)
    ticks = [float(base ** k) for k in range(first, last + 1)]
    while len(ticks) > 8:
        ticks = ticks[::2]
    return ticks


class _Axes:
    """Log-log coordinates of the plotting area for the ranges of the data."""

    def __init__(self, xs: Sequence[float], ys: Sequence[float]):
        xs = [x for x in xs if x > 0 and math.isfinite(x)] or [1.0]
        ys = [y for y in ys if y > 0 and math.isfinite(y)] or [1.0]
        self.x0, self.x1 = math.log(min(xs)), math.log(max(xs))
        self.y0, self.y1 = math.log(min(ys)), math.log(max(ys))
        if self.x1 - self.x0 < 1e-9:
            self.x0, self.x1 = self.x0 - 1, self.x1 + 1
        if self.y1 - self.y0 < 1e-9:
            self.y0, self.y1 = self.y0 - 1, self.y1 + 1
        pad = 0.05 * (self.y1 - self.y0)
        self.y0, self.y1 = self.y0 - pad, self.y1 + pad

    def xy(self, x: float, y: float) -> tuple[float, float]:
        left, top, right, bottom = AREA
        fx = (math.log(x) - self.x0) / (self.x1 - self.x0)
        fy = (math.log(max(y, 1e-300)) - self.y0) / (self.y1 - self.y0)
        return left + fx * (right - left), bottom - min(max(fy, -0.05), 1.05) * (bottom - top)

    def path(self, xs: Sequence[float], ys: Sequence[float]) -> str:
        kept = [self.xy(x, y) for x, y in zip(xs, ys) if y > 0]
        return " ".join(f"{a:.1f},{b:.1f}" for a, b in kept)


def scaling_svg(picture: Picture, unit: str, level: float, kept: str) -> str:
    """The picture as an ``<svg>`` element (``kept``: which model the call path keeps)."""
    grid = list(picture.grid)
    ys = [*picture.kept, *picture.low, *picture.high, *picture.fitted, *picture.composed, *picture.measured_y]
    ax = _Axes(grid + list(picture.measured_x), ys)
    left, top, right, bottom = AREA
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
           f'height="{HEIGHT}" role="img" class="scaling" font-family="sans-serif" font-size="11">',
           f'<rect x="{left}" y="{top}" width="{right - left}" height="{bottom - top}" fill="none" stroke="#999"/>']
    for t in _decades(math.exp(ax.x0), math.exp(ax.x1)):
        x, _ = ax.xy(t, 1.0)
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" stroke="#ddd"/>'
                   f'<text x="{x:.1f}" y="{bottom + 14}" text-anchor="middle">{sig(t, 4)}</text>')
    for t in _decades(math.exp(ax.y0), math.exp(ax.y1)):
        _, y = ax.xy(math.exp(ax.x0), t)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" stroke="#ddd"/>'
                   f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end">{sig(t, 4)}</text>')
    legend: list[tuple[str, str]] = []
    if picture.low:
        band = ax.path(grid, picture.low) + " " + ax.path(grid[::-1], picture.high[::-1])
        out.append(f'<polygon class="interval" points="{band}" fill="{COLORS["kept"]}" fill-opacity="0.18"/>')
        legend.append((f"{round(100 * level)} % interval", COLORS["kept"]))
    other = (picture.fitted, "fitted model") if kept == "composed" else (picture.composed, "composed model")
    if other[0]:
        out.append(f'<polyline class="other" points="{ax.path(grid, other[0])}" fill="none" '
                   f'stroke="{COLORS["other"]}" stroke-width="1.5" stroke-dasharray="5,3"/>')
        legend.append((other[1], COLORS["other"]))
    out.append(f'<polyline class="kept" points="{ax.path(grid, picture.kept)}" fill="none" '
               f'stroke="{COLORS["kept"]}" stroke-width="2.4"/>')
    legend.insert(0, (f"kept model ({kept})", COLORS["kept"]))
    for x, y in zip(picture.measured_x, picture.measured_y):
        if y > 0:
            cx, cy = ax.xy(x, y)
            out.append(f'<circle class="measured" cx="{cx:.1f}" cy="{cy:.1f}" r="3.5" fill="none" stroke="black"/>')
    if picture.measured_x:
        legend.append(("measured (median)", COLORS["measured"]))
    tx, ty = ax.xy(grid[-1], picture.kept[-1])
    out.append(f'<circle class="target" cx="{tx:.1f}" cy="{ty:.1f}" r="5" fill="{COLORS["kept"]}" stroke="white"/>')
    legend.append((f"target: {sig(picture.kept[-1], 4)} {unit}".rstrip(), COLORS["kept"]))
    for k, (label, color) in enumerate(legend):
        y = top + 10 + 16 * k
        out.append(f'<rect x="{right + 12}" y="{y - 8}" width="14" height="8" fill="{color}"/>'
                   f'<text x="{right + 32}" y="{y}">{escape(label)}</text>')
    fixed = f" at {point(dict(picture.fixed))}" if picture.fixed else ""
    middle = (top + bottom) / 2
    ylabel = f"inclusive [{unit}]" if unit else "inclusive"
    out.append(f'<text x="{left}" y="{top - 10}" font-weight="bold">{escape(picture.path + fixed)}</text>'
               f'<text x="{(left + right) / 2}" y="{HEIGHT - 6}" text-anchor="middle">{escape(picture.parameter)}'
               f'</text><text x="14" y="{middle}" text-anchor="middle" transform="rotate(-90 14 {middle})">'
               f'{escape(ylabel)}</text></svg>')
    return "".join(out)


__all__ = ["scaling_svg"]
