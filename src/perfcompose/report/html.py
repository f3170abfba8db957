"""One self-contained HTML page from a :class:`~perfcompose.report.document.Report`.

The page is rendered from a Jinja2 template with autoescaping; figures are matplotlib SVG
(glyphs drawn as paths, so no font is needed); it loads nothing from anywhere.
"""
from __future__ import annotations

import datetime as _dt
import io
import re
import shlex
import sys
from pathlib import Path
from typing import Any, Sequence

from perfcompose.report.document import Figure, Report


def figure(fig: Any, title: str = "", caption: str = "") -> Figure:
    """A matplotlib figure as an inline SVG :class:`Figure` (the figure is closed)."""
    import matplotlib.pyplot as plt

    buf = io.StringIO()
    with plt.rc_context({"svg.fonttype": "path", "svg.hashsalt": "perfcompose"}):
        fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    # the SVG names its own namespace; a link to the DTD is the only external reference
    text = re.sub(r"<!DOCTYPE[^>]*>", "", text)
    return Figure(title, text, caption)


def render(report: Report) -> str:
    """The page as text."""
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

    from perfcompose import __version__

    env = Environment(loader=PackageLoader("perfcompose.report", "templates"), undefined=StrictUndefined,
                      autoescape=select_autoescape(["html", "j2"], default_for_string=True, default=True),
                      trim_blocks=True, lstrip_blocks=True)
    written = _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    return env.get_template("report.html.j2").render(report=report, version=__version__, written=written)


def write(report: Report, out: str | Path) -> Path:
    """Write the page to ``out`` (folders created) and return its path."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(report), encoding="utf-8")
    return out


def this_command(argv: Sequence[str] | None = None) -> str:
    """The command line that is running, as a shell would take it back."""
    args = list(sys.argv if argv is None else argv)
    if args and Path(args[0]).name in ("perfcompose", "__main__.py", "cli.py"):
        args[0] = "perfcompose"
    return shlex.join(args)
