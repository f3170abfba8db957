"""A table of measured runtimes T(n, p), and its CSV forms: long (``n,p,time``, a row per
measurement) or wide, as the papers print it (a column ``n`` and one per PE count, empty where
not measured). ``p = seq`` (a column ``seq``) marks the sequential time T(n), the absolute
reference; without it T(n, 1) is the relative one. ``#`` starts a comment. Every time keeps the
text it was written in, so estimates can be bounded over the rounding of the printed digits."""
from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from perfcompose.data.experiment import Line
from perfcompose.errors import DataFormatError

#: the key of the sequential program's time T(n) (absolute reference point) in :attr:`RuntimeTable.times`
SEQ = 0


def half_unit(text: str) -> float:
    """Half a unit of the last printed digit of a number: ``"3.74"`` → 0.005, ``"17"`` → 0.5."""
    t = text.strip().lower()
    mantissa, _, exp = t.partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 0.5 * 10.0 ** (-decimals + (int(exp) if exp else 0))


@dataclass(frozen=True)
class RuntimeTable:
    """Measured T(n, p) in seconds (``p = SEQ``: the sequential T(n)), each with its ``texts`` as written."""

    times: Mapping[tuple[float, int], float]
    texts: Mapping[tuple[float, int], str]
    source: str = ""

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[float, int, float | str]], source: str = "") -> RuntimeTable:
        """Build from ``(n, p, time)``; ``p = SEQ`` (0) is the sequential time; a time may be text."""
        times, texts = {}, {}
        for n, p, t in rows:
            key = (float(n), int(p))
            if key in times:
                raise DataFormatError(f"duplicate measurement for n = {n:g}, p = {_p_text(p)}", path=source or None)
            texts[key] = t if isinstance(t, str) else repr(float(t))
            times[key] = float(t)
        table = cls(times, texts, source)
        table.check()
        return table

    def check(self, reference: bool = True) -> None:
        """Reject what no estimate can use: one point, no reference T(n) (if ``reference``),
        non-positive times."""
        where = self.source or None
        for (n, p), t in self.times.items():
            if not (math.isfinite(t) and t > 0):
                raise DataFormatError(f"time {t:g} at n = {n:g}, p = {_p_text(p)} is not a positive number",
                                      path=where, hint="runtimes must be positive seconds")
        if len(self.times) < 2:
            raise DataFormatError(f"{len(self.times)} measurement: a forecast needs several", path=where,
                                  hint="measure several n, or several p")
        if reference and not self.reference_ns:
            raise DataFormatError("no reference time: no row with p = 1 and no sequential time T(n)",
                                  path=where, hint="add T(n) rows with p = seq (absolute reference point) "
                                                   "or runs on one PE, p = 1 (relative reference point)")

    @property
    def absolute(self) -> bool:
        """True when the sequential program's T(n) was measured (absolute reference point)."""
        return any(p == SEQ for _, p in self.times)

    @property
    def reference_p(self) -> int:
        return SEQ if self.absolute else 1

    @property
    def reference_ns(self) -> list[float]:
        ref = self.reference_p
        return sorted(n for n, p in self.times if p == ref)

    @property
    def ns(self) -> list[float]:
        return sorted({n for n, _ in self.times})

    @property
    def ps(self) -> list[int]:
        return sorted({p for _, p in self.times if p != SEQ})

    def sequential(self, n: float) -> float | None:
        """T(n) at the reference point: the sequential time, or T(n, 1) without one."""
        return self.times.get((float(n), self.reference_p))

    def reference_times(self, ns: Sequence[float]) -> list[float]:
        """The sequential times at ``ns``, every one of them among :attr:`reference_ns`."""
        return [self.times[(float(n), self.reference_p)] for n in ns]

    def half_unit(self, n: float, p: int) -> float:
        return half_unit(self.texts[(float(n), int(p))])

    def without_all(self, keys: Iterable[tuple[float, int]]) -> RuntimeTable:
        """The same table without the measurements at ``keys`` ((n, p) pairs): to forecast known
        values honestly."""
        drop = {(float(n), int(p)) for n, p in keys}
        return RuntimeTable({k: v for k, v in self.times.items() if k not in drop},
                            {k: v for k, v in self.texts.items() if k not in drop}, self.source)


def _p_text(p: int) -> str:
    return "seq" if p == SEQ else str(p)


def _parse_p(text: str, at: Line) -> int:
    t = text.strip().lower()
    if t in ("seq", "t(n)", "sequential"):
        return SEQ
    try:
        p = int(t)
    except ValueError:
        raise at.error(f"PE count {text!r} is not a whole number or 'seq'") from None
    if p < 1:
        raise at.error(f"PE count {p} must be at least 1 (or 'seq' for the sequential time)")
    return p


def _parse_number(text: str, what: str, at: Line) -> float:
    try:
        v = float(text)
    except ValueError:
        raise at.error(f"{what} {text!r} is not a number") from None
    if not math.isfinite(v) or v <= 0:
        raise at.error(f"{what} {text.strip()} must be a positive number",
                       hint="runtimes are positive seconds; n is a positive size")
    return v


def read_table(path: str | Path, text: str | None = None, *, reference: bool = True) -> RuntimeTable:
    """A runtime table in long or wide CSV form; ``reference=False`` accepts one without T(n) or T(n, 1)."""
    path = Path(path)
    if text is None:
        try:
            text = path.read_text()
        except OSError as exc:
            raise DataFormatError(f"cannot read: {exc.strerror}", path=path) from None
    lines = [(k + 1, ln) for k, ln in enumerate(text.splitlines()) if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        raise DataFormatError("empty table", path=path, hint="first line: n,p,time (or n,seq,1,2,... wide)")
    rows = list(csv.reader(io.StringIO("\n".join(ln for _, ln in lines))))
    header = [h.strip().lower() for h in rows[0]]
    head = Line(path, *lines[0])
    if not header or header[0] != "n":
        raise head.error("the first column must be n",
                         hint="long form: n,p,time; wide form: n,seq,1,2,4,... (one column per PE count)")
    if len(set(header)) != len(header):
        raise head.error("a column name repeats")
    long_form = header == ["n", "p", "time"]
    if not long_form:
        cols = [_parse_p(h, head) for h in header[1:]]
    seen: dict[tuple[float, int], tuple[int, str]] = {}  # (line, time as written) by (n, p)
    for (line, src), row in zip(lines[1:], rows[1:]):
        at = Line(path, line, src)
        cells = [c.strip() for c in row]
        if len(cells) != len(header):
            raise at.error(f"{len(cells)} cells, the header has {len(header)}")
        n = _parse_number(cells[0], "n", at)
        pairs = [(_parse_p(cells[1], at), cells[2])] if long_form else [(p, c) for p, c in zip(cols, cells[1:]) if c]
        for p, cell in pairs:
            _parse_number(cell, "time", at)
            if (n, p) in seen:
                raise at.error(f"duplicate measurement for n = {n:g}, p = {_p_text(p)} (first on line {seen[n, p][0]})",
                               hint="one row per (n, p): average repetitions first")
            seen[n, p] = (line, cell)
    table = RuntimeTable({k: float(t) for k, (_, t) in seen.items()}, {k: t for k, (_, t) in seen.items()}, str(path))
    table.check(reference)
    return table
