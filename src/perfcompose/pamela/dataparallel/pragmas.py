"""The Modeling Engine's annotations: ``# pamela: key = expression, ...`` comments of a program's lines."""
from __future__ import annotations

import io
import re
import tokenize

from perfcompose.pamela.language.syntax import PamelaError

__all__ = ["pragmas", "PRAGMA_KEYS"]

_PRAGMA = re.compile(r"#\s*pamela\s*:(.*)$")
PRAGMA_KEYS = ("size", "lower", "upper", "cond", "cost")


def pragmas(source: str, path: str | None = None) -> dict[int, dict[str, str]]:
    """``{line: {key: expression}}`` of the ``# pamela: key = expr, ...`` comments."""
    out: dict[int, dict[str, str]] = {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return out
    for tok in tokens:
        if tok.type != tokenize.COMMENT:
            continue
        m = _PRAGMA.search(tok.string)
        if not m:
            continue
        items: dict[str, str] = {}
        for part in _split_top(m.group(1)):
            key, eq, value = part.partition("=")
            key = key.strip()
            if not eq or key not in PRAGMA_KEYS or not value.strip():
                raise PamelaError(f"'{part.strip()}' is not a pamela annotation", path=path, line=tok.start[0],
                                  column=tok.start[1] + 1, source_line=tok.line.rstrip("\n"),
                                  hint="write '# pamela: KEY = EXPRESSION' with KEY one of " + ", ".join(PRAGMA_KEYS))
            items[key] = value.strip()
        out[tok.start[0]] = items
    return out


def _split_top(text: str) -> list[str]:
    """Split at commas outside brackets."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return parts
