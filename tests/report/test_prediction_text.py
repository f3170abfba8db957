"""``predict`` shows times as people read them: each time in the tables scaled to s, ms, µs or ns
(28.48 ms, not 28480000 ns), on the console and on the page, while the JSON keeps the raw values
with the design's unit."""
from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from perfcompose.cli import app

PIPELINE = Path(__file__).resolve().parents[2] / "examples" / "designs" / "pipeline.toml"
SECONDS = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}
TIME = re.compile(r"^([0-9.]+) (s|ms|µs|ns)$")


def _times(cells: list[str]) -> list[float]:
    """The cells that are times, in seconds; each must lie between 1 and 1000 of its unit."""
    found = []
    for cell in cells:
        m = TIME.match(cell.strip())
        if m:
            value = float(m.group(1))
            assert 1 <= value < 1000 or m.group(2) in ("s", "ns"), cell
            found.append(value * SECONDS[m.group(2)])
    return found


def test_the_tables_scale_each_time_and_the_json_keeps_nanoseconds(tmp_path):
    out, page = tmp_path / "p.json", tmp_path / "p.html"
    r = CliRunner().invoke(app, ["predict", str(PIPELINE), "--json", str(out), "--html", str(page)],
                           env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    data = json.loads(out.read_text())
    assert data["unit"] == "ns" and data["points"][0]["value"] > 1e6  # raw nanoseconds
    raw = [p["value"] * 1e-9 for p in data["points"]]

    table = r.output[r.output.index("predicted time per data element"):]
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in table.splitlines() if line.startswith("│")]
    printed = _times([row[1] for row in rows])
    assert len(printed) == len(raw) and all(abs(p - w) <= 1e-4 * w for p, w in zip(printed, raw))
    assert not re.search(r"\d{5,} ns|\[ns\]", table)  # no column of raw nanoseconds

    cells = re.findall(r"<td[^>]*>([^<]*)</td>", page.read_text())
    shown = _times(cells)
    assert all(any(abs(s - w) <= 1e-4 * w for s in shown) for w in raw), "every prediction is on the page"
    assert not any(re.fullmatch(r"\d{5,}(\.\d+)?", c.strip()) for c in cells if c.strip() not in
                   {str(int(p["point"]["x"])) for p in data["points"]}), "a raw time on the page"
