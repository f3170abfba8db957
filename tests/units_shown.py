"""What a reader checks in a command's output: every number shown as a time carries its unit.

:func:`unit_problems` reads a command's printed output (stdout and stderr together) and returns
one line per number a user could not read right:

- ``nan``, ``inf`` or ``-inf`` anywhere;
- a negative time (``-0.5 ms``, or a negative number in a column whose header gives a time unit),
  unless the text says that is why it was discarded (``-0.5 < 0``);
- a table column of bare numbers whose header gives no unit (``[ns]``), no ``%``, no ratio (R²)
  and does not name a count or a parameter (``x``, ``threads``, ``reps``, ...), in a table whose
  title gives no unit; a column whose cells carry their own unit (``28.48 ms``, ``5.9x``,
  ``39 %``) needs none;
- in a sentence, a decimal number (one with a point or an exponent: counts and sizes are
  integers) that is not followed by its unit, ``%``, ``x`` or ``of`` (a ratio), is not a
  parameter's value (``G=0.01``), not a ratio named before it (``R² 0.99``), and whose line gives
  no bracketed unit after it (``inc 3.5e+07, nop 5423 [ns]``) nor before its colon
  (``P0 [us]: comp [0, 3]``);
- a model (a formula with decimal coefficients) whose line and its neighbours state no unit.

An output that says its input states no unit ("states no unit", "[no unit]") may show times
without one: that is the truth about such data.

:func:`page_text` reads an HTML report as a reader sees it, in the same shape: its tables drawn as
the terminal's (caption, ``┃`` header, ``│`` rows), every other block of text a line, scripts,
styles and pictures left out; ``unit_problems(page_text(html))`` then reads the page.
"""
from __future__ import annotations

import re
from html.parser import HTMLParser

#: units a number may carry: times, sizes, rates, ratios
UNIT = r"(?:s|ms|µs|us|ns|ps|B|KiB|MiB|GiB|TiB|kB|MB|GB|B/s|MB/s|GB/s|%|x|×|cycles|Hz|kHz|MHz|GHz)"
TIME_UNIT = r"(?:s|ms|µs|us|ns)"
NUMBER = r"(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?"

_NON_FINITE = re.compile(r"(?<![\w.])-?(?:nan|inf|infinity)(?![\w])", re.IGNORECASE)
_NEGATIVE_TIME = re.compile(rf"(?<![\w.])-{NUMBER}\s?{TIME_UNIT}(?![\w/])(?!\s*<\s*0)")
_NO_UNIT = re.compile(r"states no unit|\[no unit\]|without a unit|no unit known", re.IGNORECASE)

_WITH_UNIT = re.compile(rf"^[-+]?{NUMBER}\s?{UNIT}(?![\w])")
_BARE = re.compile(rf"^[-+]?{NUMBER}(?:\s*/\s*[-+]?{NUMBER})?$")
#: headers that name a count, an index or a parameter's value rather than a time
_COUNT_HEADER = re.compile(r"^(?:[A-Za-z]|[A-Za-z]=\S+|rank|reps|repetitions|points?|threads|workers|cores|"
                           r"processors?|operations|instances|inside|messages|steps|tasks|rounds|runs|size|sizes|.*\bpoints|"
                           r"#.*|.*\bcount|.*\bcounts)$", re.IGNORECASE)
_RATIO_HEADER = re.compile(r"%|R²|R2\b|\bratio\b|\bspeed-?up\b|\bfactor\b|\[[^\]]+\]", re.IGNORECASE)
_TITLE_UNIT = re.compile(rf"\[{UNIT}\]")
_TIME_HEADER = re.compile(rf"\[{TIME_UNIT}\]")

_TABLE_ROW, _TABLE_HEAD = "│", "┃"
_DECIMAL = re.compile(rf"(?<![\w.^/])({NUMBER})")
_AFTER_OK = re.compile(rf"\s?(?:{UNIT}(?![\w])|of\b|\[)")
_ASSIGNED = re.compile(r"[A-Za-z_][\w()]*\s?=\s?[-+]?$")
_RATIO_BEFORE = re.compile(r"(?:R²|R2|ratio|factor)\s?[-+]?$")
_RANGE = re.compile(rf"\s?(?:-|\.\.|to)\s?{NUMBER}")
_BRACKET_UNIT = re.compile(rf"\[{UNIT}\]|\bunit:\s?\S|\(times in \S+\)|\[no unit\]")
_LABEL_UNIT = re.compile(rf"^\s*[^:\[]*\[{UNIT}\]:")
_INTERVAL_AFTER_UNIT = re.compile(rf"({NUMBER}\s?{UNIT})\s?\[[-+]?{NUMBER},\s?[-+]?{NUMBER}\]")


def _cells(line: str, bar: str) -> list[str]:
    return [c.strip() for c in line.strip().strip(bar).split(bar)]


def _table_problems(lines: list[str]) -> list[str]:
    """The columns of bare numbers under a header that names no unit, count or ratio; negative
    numbers in a column of times."""
    problems: list[str] = []
    headers: list[str] = []
    reading_head = titled = False
    for k, line in enumerate(lines):
        text = line.strip()
        if text.startswith("┏"):
            headers, reading_head = [], True
            titled = k > 0 and bool(_TITLE_UNIT.search(lines[k - 1]))
        elif text.startswith(_TABLE_HEAD) and reading_head:
            cells = _cells(text, _TABLE_HEAD)
            headers = [f"{h} {c}".strip() for h, c in zip(headers, cells)] if headers else cells
        elif text.startswith("┡"):
            reading_head = False
        elif text.startswith(_TABLE_ROW) and headers:
            for header, cell in zip(headers, _cells(text, _TABLE_ROW)):
                if _BARE.match(cell):
                    if not (titled or _COUNT_HEADER.match(header) or _RATIO_HEADER.search(header)):
                        problems.append(f"{cell!r} under {header!r} names no unit: {text}")
                    if cell.startswith("-") and _TIME_HEADER.search(header):
                        problems.append(f"negative time {cell!r} under {header!r}: {text}")
    return problems


def _sentence_problems(lines: list[str]) -> list[str]:
    """Decimal numbers in sentences without their unit; models without theirs."""
    problems: list[str] = []
    for k, raw in enumerate(lines):
        if raw.strip().startswith(("│", "┃", "┏", "┡", "└", "╭", "╰", "┗")):
            continue
        line = _INTERVAL_AFTER_UNIT.sub(r"\1 [..]", raw)
        expression = False
        for m in _DECIMAL.finditer(line):
            number, before, after = m.group(1), line[:m.start()].rstrip(), line[m.end():]
            if not re.search(r"[.eE]", number) or re.match(r"\.\d", after):
                continue  # an integer (a count or a size), or a version (0.1.0)
            prev = before.rstrip("-+").rstrip()[-1:]
            nxt = after.lstrip()[:1]
            if re.search(r"[*^]", line) and (prev and prev in "*/^+" or nxt and nxt in "*/^+"):
                expression = True  # a coefficient of a model
                continue
            if _RANGE.match(after) or _AFTER_OK.match(after) or _ASSIGNED.search(before) \
                    or _RATIO_BEFORE.search(before) or _BRACKET_UNIT.search(after) or _LABEL_UNIT.match(line):
                continue
            problems.append(f"{number} has no unit: {raw.strip()}")
        if expression and not _BRACKET_UNIT.search(" ".join(lines[max(k - 1, 0):k + 2])):
            problems.append(f"a model without its unit: {raw.strip()}")
    return problems


def unit_problems(output: str) -> list[str]:
    """Every number of ``output`` a user could not read right, one line each (see the module)."""
    problems = [f"not a number: {m.group(0)!r} in {line.strip()}" for line in output.splitlines()
                for m in _NON_FINITE.finditer(line)]
    problems += [f"negative time: {m.group(0)!r}" for m in _NEGATIVE_TIME.finditer(output)]
    lines = output.splitlines()
    if _NO_UNIT.search(output):
        return problems  # the input states no unit: its times are shown without one, as they are
    return problems + _table_problems(lines) + _sentence_problems(lines)


_HIDDEN = {"script", "style", "svg", "head", "template"}
_BLOCK = {"p", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "dd", "figcaption", "summary", "pre",
          "section", "header", "footer", "main", "nav", "figure", "details", "br", "hr", "blockquote", "dl"}


class _PageText(HTMLParser):
    """The visible text of a page, one line per block, its tables drawn as the terminal's."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.line = ""
        self.hidden = 0
        self.caption: str | None = None
        self.head: list[list[str]] = []
        self.body: list[list[str]] = []
        self.row: list[str] | None = None
        self.cell: str | None = None
        self.in_head = self.in_caption = self.row_th = False

    def _end_line(self) -> None:
        if self.line.strip():
            self.lines.append(" ".join(self.line.split()))
        self.line = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN:
            self.hidden += 1
        elif tag == "table":
            self._end_line()
            self.caption, self.head, self.body = None, [], []
        elif tag == "caption":
            self.caption, self.in_caption = "", True
        elif tag == "thead":
            self.in_head = True
        elif tag == "tr":
            self.row, self.row_th = [], True
        elif tag in ("td", "th") and self.row is not None:
            self.cell, self.row_th = "", self.row_th and tag == "th"
        elif tag in _BLOCK:
            self._end_line()
        else:
            self._space()

    def _space(self) -> None:
        """Inline elements drawn apart (a tree's name and value) read as separate words."""
        if self.cell is not None:
            self.cell += " "
        else:
            self.line += " "

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN:
            self.hidden = max(self.hidden - 1, 0)
        elif tag == "thead":
            self.in_head = False
        elif tag == "caption":
            self.in_caption = False
        elif tag in ("td", "th") and self.row is not None and self.cell is not None:
            self.row.append(" ".join(self.cell.split()))
            self.cell = None
        elif tag == "tr" and self.row is not None:
            heading = self.in_head or (not self.head and not self.body and bool(self.row) and self.row_th)
            (self.head if heading else self.body).append(self.row)
            self.row = None
        elif tag == "table":
            self._draw_table()
        elif tag == "dt":
            self.line += ": "
        elif tag in _BLOCK:
            self._end_line()
        elif tag in ("span", "b", "summary", "code"):
            self._space()

    def _draw_table(self) -> None:
        if self.caption and self.caption.strip():
            self.lines.append(" ".join(self.caption.split()))
        self.lines.append("┏━┓")
        self.lines += ["┃ " + " ┃ ".join(row) + " ┃" for row in self.head]
        self.lines.append("┡━┩")
        self.lines += ["│ " + " │ ".join(row) + " │" for row in self.body]
        self.lines.append("└─┘")

    def handle_data(self, data: str) -> None:
        if self.hidden:
            return
        if self.cell is not None:
            self.cell += data
        elif self.in_caption and self.caption is not None:
            self.caption += data
        else:
            self.line += data

    def close(self) -> None:
        super().close()
        self._end_line()


def page_text(html: str) -> str:
    """The text of an HTML page as :func:`unit_problems` reads it (see the module)."""
    reader = _PageText()
    reader.feed(html)
    reader.close()
    return "\n".join(reader.lines)
