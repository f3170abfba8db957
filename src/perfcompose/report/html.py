"""One self-contained HTML page from a :class:`~perfcompose.report.document.Report` (Jinja2,
autoescaped; matplotlib SVG with glyphs as paths): it loads nothing from anywhere."""
from __future__ import annotations

import datetime as _dt
import io
import re
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from typer._click.globals import get_current_context

from perfcompose import __version__
from perfcompose.report.document import Figure, Report
from perfcompose.report.figures import plt


def figure(fig: Any, title: str = "", caption: str = "") -> Figure:
    """A matplotlib figure as an inline SVG :class:`Figure` (the figure is closed)."""
    buf = io.StringIO()
    with plt.rc_context({"svg.fonttype": "path", "svg.hashsalt": "perfcompose"}):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    # the SVG names its own namespace; a link to the DTD is the only external reference
    text = re.sub(r"<!DOCTYPE[^>]*>", "", text)
    return Figure(title, text, caption)


def render(report: Report) -> str:
    """The page as text."""
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
    """The command line that is running, as a shell would take it back: from the running
    command's parameters where there is one (each value that differs from its default),
    else from ``argv``."""
    ctx = get_current_context(silent=True)
    if ctx is None or argv is not None:
        args = list(sys.argv if argv is None else argv)
        if args and Path(args[0]).name in ("perfcompose", "__main__.py", "cli.py"):
            args[0] = "perfcompose"
        return shlex.join(args)
    words = ctx.command_path.split()
    words[0] = "perfcompose"
    tail: list[str] = []
    for param in ctx.command.params:
        value = ctx.params.get(param.name or "")
        if value is None or value == param.default or (isinstance(value, (list, tuple)) and not value):
            continue
        if param.param_type_name == "argument":
            tail += [str(v) for v in value] if isinstance(value, (list, tuple)) else [str(value)]
            continue
        if getattr(param, "is_flag", False):
            names = param.opts if value else param.secondary_opts
            if names:
                words.append(names[0])
            continue
        name = max(param.opts, key=len)
        for v in value if isinstance(value, (list, tuple)) else [value]:
            words += [name, str(getattr(v, "value", v))]
    return shlex.join(words + tail)
