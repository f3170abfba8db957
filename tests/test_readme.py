"""The README's Python example runs, and what it says its prints show is what they show."""
from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


PRINTS = re.compile(r"^\s*print\(.*\)\s+#\s*(.+)$", flags=re.M)


def _python_block() -> str:
    """The README's Python example: the block that says what its prints show."""
    text = (ROOT / "README.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if PRINTS.search(b)]
    assert blocks, "the README has a Python example"
    return blocks[0]


def test_the_readme_python_example_prints_what_its_comments_say():
    code = _python_block()
    expected = [m.group(1).strip() for m in PRINTS.finditer(code)]
    out = io.StringIO()
    here = os.getcwd()
    try:
        os.chdir(ROOT)
        with contextlib.redirect_stdout(out):
            exec(compile(code, "README.md", "exec"), {"__name__": "readme"})  # noqa: S102 (the project's own README)
    finally:
        os.chdir(here)
    for text in expected:
        assert text.removesuffix("...").strip() in out.getvalue(), text
