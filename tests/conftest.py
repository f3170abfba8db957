"""Shared fixtures: writing (bad) input files into tmp_path. Hypothesis runs with its "ci" profile,
and the terminal the suite is started from does not shape the output the tests read."""
from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# rich fixes a console's width and colours when the console is made (at import) from these; a
# narrow COLUMNS or a FORCE_COLOR in the calling shell or CI would wrap or colour the text the
# tests read. Tests that need a width say so (CliRunner(env=...), COLUMNS=200 for subprocesses).
for _name in ("COLUMNS", "LINES", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "JUPYTER_COLUMNS",
              "JUPYTER_LINES"):
    os.environ.pop(_name, None)

# Every run of the suite tries the same examples (derived from each test), with no deadline, no
# example database and no "too slow" health check: a property's outcome depends neither on the
# run nor on how busy the machine is. `pytest --hypothesis-profile=default` explores new examples.
settings.load_profile("ci")


@pytest.fixture
def write_file(tmp_path: Path) -> Callable[[str, str | bytes], Path]:
    """Write text (or bytes) to ``tmp_path / name`` and return the path."""

    def write(name: str, content: str | bytes) -> Path:
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode())  # byte-exact: no newline translation
        return path

    return write


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Headless Chromium, driven through playwright, for the tests that open the HTML pages; they
    are skipped where Chromium or playwright is missing. Started once (about 3 s) for them all."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("no chromium on PATH (Debian: apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the browser tests drive Chromium through "
                                   "playwright: pip install '.[test]'")
    with sync_api.sync_playwright() as p:
        try:
            b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        except Exception as exc:  # e.g. a container without the libraries chromium needs
            pytest.skip(f"chromium at {chromium} cannot be started: {str(exc).splitlines()[0]}")
        yield b
        b.close()


@pytest.fixture
def open_static_page(browser: Any) -> Iterator[Callable[[Path], Any]]:
    """Open a page of the project in the browser, failing on console or page errors and on any
    request but the page's own file: the pages are self-contained. The pages close after the test."""
    pages: list[Any] = []

    def open_page(path: Path) -> Any:
        page = browser.new_page()
        pages.append(page)
        errors: list[str] = []
        requests: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: requests.append(r.url))
        page.goto(path.resolve().as_uri())
        page.wait_for_load_state("load")
        assert errors == [] and requests == [path.resolve().as_uri()]
        return page

    yield open_page
    for page in pages:
        page.close()
