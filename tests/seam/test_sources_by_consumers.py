"""Every source of a component model reaches every consumer with the value the source gives alone.

A table of sources (how a component is written in a design file and with ``-c``, and what the
source itself says its time is at a size, found without perfcompose's composition: the
expression's value, ``pamela eval``, ``loggp simulate --at``, ``skeleton forecast --at``, the
model ``perfcompose fit --json`` writes, the law a two-piece data set was made from, the
measurements a benchmark target left in its checkpoint, the parts of a design whose prediction
record is read back) times a table of consumers (``compose --json`` read back, ``compose --at``,
``predict`` text, ``--json`` read back, ``--html`` parsed, ``--plot``, ``explore`` and the Python
API). Each cell composes the source and checks the value the consumer reports against the
source's own. A new source or consumer is one entry in SOURCES or CONSUMERS. Sources without a
``-c`` form (an Extra-P model set, a benchmark target) reach the command-line consumers through
their prediction record (``predict --json``), as a user would.
"""
from __future__ import annotations

import json
import math
import re
import shlex
import statistics
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cache
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.compose import compose, load_design, parse_component
from perfcompose.units import conversion

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
#: the sizes every cell predicts at: none is a size of the skeleton's runtime table (a forecast
#: at a measured size leaves that measurement out, a component's model does not)
XS = (8192.0, 32768.0)
#: relative tolerances: values written in full (JSON, the Python API, a model read back), and
#: values printed to 5 significant digits (the tables of the text and HTML output)
EXACT, PRINTED = 1e-9, 1e-4


def cli(*args: str | Path) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, f"perfcompose {shlex.join(map(str, args))}\n{result.output}"
    return result.stdout


# ---------------------------------------------------------------------------------------------
# sources


@dataclass(frozen=True)
class Source:
    """One source of a component model, written as the component ``s``.

    ``table``: the component in a design file (an inline TOML table); ``option``: the ``-c`` and
    ``--bind`` options naming it on the command line, or None where only a design names it;
    ``truth(x, design, name)``: the source's own time at size x in ``unit`` (``design`` and
    ``name``: the design file and component the cell used, for a source that measures where its
    design lies).
    """

    table: str
    unit: str
    truth: Callable[[float, Path, str], float]
    option: tuple[str, ...] | None = None
    rel: float = EXACT


def _toml(path: Path) -> str:
    return json.dumps(str(path))  # a TOML basic string is a JSON string


def _fit_record(path: Path, region: str | None, workdir: Path) -> Mapping:
    """The model ``perfcompose fit FILE [--region R] --json`` writes."""
    out = workdir / f"fit-{path.stem}-{region}.json"
    cli("fit", path, *(["--region", region] if region else []), "--json", out)
    (record,) = [r for r in json.loads(out.read_text()) if region in (None, r["region"])]
    return record["model"]


def _evaluated(record: Mapping) -> Callable[[float, Path], float]:
    from perfcompose import Model

    model = Model.from_json(record)
    return lambda x, *_: float(model(x=x))


def expression(tmp: Path) -> Source:
    return Source('{ model = "536.185*x", unit = "ns" }', "ns", lambda x, *_: 536.185 * x,
                  ("-c", "s=536.185*x", "--unit", "ns"))


def fitted(file: str, region: str | None, unit: str | None = None) -> Callable[[Path], Source]:
    """Measurements fitted on the spot; the truth is what ``perfcompose fit`` fits to them.
    ``unit``: the unit a file that states none is in, given as a user gives it (``unit`` in the
    component's table, ``--unit`` on the command line)."""

    def build(tmp: Path) -> Source:
        path = EXAMPLES / file
        record = _fit_record(path, region, tmp)
        assert record["unit"] == ("" if unit else record["unit"])  # the file states no unit: none is made up
        spec = f"s={path}" + (f":{region}" if region else "")
        table = (f"{{ file = {_toml(path)}" + (f', region = "{region}"' if region else "")
                 + (f', unit = "{unit}"' if unit else "") + " }")
        return Source(table, unit or record["unit"], _evaluated(record),
                      ("-c", spec, *(("--unit", unit) if unit else ())))

    return build


def saved_model(tmp: Path) -> Source:
    """A model written by ``compose --json`` and read back."""
    out = cli("compose", "seq(inc, nop)", "-c", "inc=536.185*x", "-c", "nop=5422.97", "--unit", "ns", "--json", "-")
    saved = tmp / "saved.json"
    saved.write_text(out)
    return Source(f"{{ file = {_toml(saved)} }}", "ns", lambda x, *_: 536.185 * x + 5422.97, ("-c", f"s={saved}"))


def extrap_saved(tmp: Path) -> Source:
    """A model of the model set that ``fit --save-experiment`` writes into an Extra-P experiment."""
    run = tmp / "run.extra-p"
    cli("fit", EXAMPLES / "tasks.txt", "--save-experiment", run)
    record = _fit_record(EXAMPLES / "tasks.txt", "qsort", tmp)
    return Source(f'{{ file = {_toml(run)}, model_set = "perfcompose PMNF", region = "qsort", unit = "ns" }}',
                  "ns", _evaluated(record))


def _pamela_eval(path: Path, **values: float) -> float:
    return json.loads(cli("pamela", "eval", path, *(f"{k}={v!r}" for k, v in values.items()), "--json", "-"))["T_main"]


def pamela(tmp: Path) -> Source:
    mrm = EXAMPLES / "pamela" / "mrm.pam"
    return Source(f'{{ pamela = {_toml(mrm)}, bind = {{ N = "x", P = 4 }}, unit = "us" }}', "us",
                  lambda x, *_: _pamela_eval(mrm, P=4, N=x),
                  ("-c", f"s={mrm}", "-b", "s.N=x", "-b", "s.P=4", "--unit", "us"))


def loggp(tmp: Path) -> Source:
    program, params = EXAMPLES / "loggp" / "exchange.json", EXAMPLES / "loggp" / "params_local.json"
    record = tmp / "loggp-model.json"
    cli("loggp", "simulate", program, "--params", params, "--at", "x=1024", "--model-json", record)

    def makespan(x: float, *_: object) -> float:
        out = cli("loggp", "simulate", program, "--params", params, "--at", f"x={x:g}", "--json", "-")
        return json.loads(out)["makespan"]

    return Source(f"{{ loggp = {_toml(program)}, params = {_toml(params)} }}", "us", makespan, ("-c", f"s={record}"))


def prediction_record(tmp: Path) -> Source:
    """The record ``predict --json`` writes of a design (a LogGP program after a constant step),
    read back as one component: its model record carries the program's record with it."""
    program, params = EXAMPLES / "loggp" / "exchange.json", EXAMPLES / "loggp" / "params_local.json"
    design = tmp / "halo.toml"
    design.write_text(f'program = "seq(halo, pack)"\nx = [1024]\n\n[components]\n'
                      f'halo = {{ loggp = {_toml(program)}, params = {_toml(params)} }}\n'
                      'pack = { model = "2.5", unit = "us" }\n')
    record = tmp / "halo-prediction.json"
    cli("predict", design, "--json", record)
    own = loggp(tmp).truth
    return Source(f"{{ file = {_toml(record)} }}", "us", lambda x, *_: own(x) + 2.5, ("-c", f"s={record}"))


def skeleton(tmp: Path) -> Source:
    table = EXAMPLES / "skeleton" / "checksum.csv"
    methods = ("--method-t", "lm-poly", "--method-a", "lm")

    def forecast(x: float, *_: object) -> float:
        out = tmp / f"forecast-{x:g}.json"
        cli("skeleton", "forecast", table, "--at", f"n={x:g},p=4", *methods, "--json", out, "--no-plot")
        return json.loads(out.read_text())["forecast"]

    record = tmp / "skeleton-model.json"
    cli("skeleton", "forecast", table, "--at", "n=2048,p=4", *methods, "--json", record, "--no-plot")
    return Source(f'{{ skeleton = {_toml(table)}, bind = {{ n = "x", p = 4 }}, method_t = "lm-poly", '
                  'method_a = "lm" }', "s", forecast, ("-c", f"s={record}", "-b", "s.n=x", "-b", "s.p=4"))


def _checkpoint_medians(design: Path, name: str) -> dict[float, float]:
    """Median time in ns per size that the target component ``name`` measured for ``design``."""
    path = design.parent / ".perfcompose" / f"{design.stem}-{name}.json.checkpoint.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()[1:] if line.strip()]
    return {line["coordinate"][0]: 1e9 * statistics.median(line["values"]) for line in lines}


def target(tmp: Path) -> Source:
    """A built-in task measured when the design is first read; the truth is the model fitted to
    what it measured, read again from its checkpoint. Over the grid it must lie within a factor
    of 30 of the medians measured (in the median over the sizes): a slip of units is a factor of
    1000 or more, while timings on a busy machine scatter by several."""

    def measured(x: float, design: Path, name: str) -> float:
        model = load_design(design).components[name]
        medians = _checkpoint_medians(design, name)
        ratio = statistics.median(float(model(x=size)) / value for size, value in medians.items())
        assert 1 / 30 < ratio < 30, f"the fit is {ratio:.3g} times the measurements"
        return float(model(x=x))

    return Source('{ target = "inc", grid = "x=4096:65536", reps = 3 }', "ns", measured)


#: a two-piece law with a breakpoint between the sizes of XS
SEGMENTS = (lambda x: 4000.0 + 2.0 * x, lambda x: 0.004 * x ** 2)
BREAK = 16384


def segmented(tmp: Path) -> Source:
    """``fit --segmented --json`` of data that follow one law below a size and another above."""
    rows = ["region,metric,unit,x,repetition,value"]
    for k in range(9, 20):  # at least 4 sizes a side
        x = 2.0 ** k
        law = SEGMENTS[0] if x <= BREAK else SEGMENTS[1]
        rows += [f"kernel,time,ns,{x:g},{r},{law(x) * f!r}" for r, f in enumerate((0.99, 1.0, 1.01), 1)]
    data = tmp / "kernel.csv"
    data.write_text("\n".join(rows) + "\n")
    out = tmp / "segmented.json"
    cli("fit", data, "--segmented", "--json", out)
    assert "Piecewise" in json.loads(out.read_text())[0]["model"]["expr"], "the fit found no breakpoint"
    return Source(f"{{ file = {_toml(out)} }}", "ns", lambda x, *_: (SEGMENTS[0] if x <= BREAK else SEGMENTS[1])(x),
                  ("-c", f"s={out}"), rel=0.02)


SOURCES: dict[str, Callable[[Path], Source]] = {
    "expression": expression,
    "fit_json": fitted("qsort.json", None),
    "fit_csv": fitted("tasks.csv", "inc"),
    "fit_txt": fitted("tasks.txt", "qsort", unit="ns"),  # Extra-P text states no unit
    "saved_model": saved_model,
    "extrap_saved": extrap_saved,
    "pamela": pamela,
    "loggp": loggp,
    "skeleton": skeleton,
    "prediction_record": prediction_record,
    "target": target,
    "segmented": segmented,
}


# ---------------------------------------------------------------------------------------------
# consumers: each returns (unit, factor, tolerance, {x: value}) where value ~ factor * truth(x)


@dataclass(frozen=True)
class Cell:
    """What one consumer needs: the source, a scratch folder, and the design file naming the
    source as component ``s`` in the program ``seq(s, s)`` at the sizes XS."""

    source: Source
    tmp: Path

    @property
    def design(self) -> Path:
        path = self.tmp / "design.toml"
        if not path.exists():
            path.write_text(f'program = "seq(s, s)"\nx = {list(XS)}\n\n[components]\ns = {self.source.table}\n')
        return path

    def option(self) -> list[str]:
        """The -c options naming the source; a design-only source through its prediction record."""
        if self.source.option is not None:
            return list(self.source.option)
        part = self.tmp / "part" / "design.toml"  # the same stem: a target reuses its measurements
        part.parent.mkdir(exist_ok=True)
        part.write_text(f'program = "s"\nx = {list(XS)}\n\n[components]\ns = {self.source.table}\n')
        cli("predict", part, "--json", self.tmp / "part.json")
        return ["-c", f"s={self.tmp / 'part.json'}"]

    def truth_design(self) -> Path:
        part = self.tmp / "part" / "design.toml"
        return part if part.exists() else self.design


Result = tuple[str, float, float, dict[float, float]]

_NUMBER = r"([-+0-9.e]+)"


def consume_compose(cell: Cell) -> Result:
    """``compose --json``: the model printed as JSON, read back as a component and evaluated."""
    out = cli("compose", "seq(s, s)", *cell.option(), "--json", "-")
    saved = cell.tmp / "composed.json"
    saved.write_text(out)
    _, model = parse_component(f"r={saved}")
    return model.unit, 2.0, EXACT, {x: float(model(**{p: x for p in model.params})) for x in XS}


def consume_compose_at(cell: Cell) -> Result:
    """``compose --at x=X``: the printed prediction line at each point."""
    out = cli("compose", "seq(s, s)", *cell.option(), *(a for x in XS for a in ("--at", f"x={x:g}")))
    values, unit = {}, ""
    for x in XS:
        m = re.search(rf"^at x={x:g}: {_NUMBER} (?:\[[^\]]*\] )?(\S+)", out, flags=re.M)
        assert m, out
        values[x], unit = float(m.group(1)), m.group(2)
    return unit, 2.0, 1e-5, values


def _shown_time(text: str, unit: str) -> float:
    """A time as predict's tables show it, scaled with its own unit (``8.7849 ms``), in ``unit``."""
    value, shown = text.split()
    return float(value) * conversion(shown, unit)


def _rows(text: str, title: str) -> dict[str, list[str]]:
    """The rows of a rich table of the text output, by their first cell."""
    table = text[text.index(title):]
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in table.splitlines() if line.startswith("│")]
    return {row[0]: row[1:] for row in rows}


def consume_predict_text(cell: Cell) -> Result:
    """``predict``: the table of predicted times."""
    out = cli("predict", cell.design)
    unit = re.search(r"^model: .*\[(\S+)\]$", out, flags=re.M).group(1)
    rows = _rows(out, "predicted time per data element")
    return unit, 2.0, PRINTED, {x: _shown_time(rows[f"{x:g}"][0], unit) for x in XS}


def consume_predict_json(cell: Cell) -> Result:
    """``predict --json``: the record read back; each component's time is the source's too."""
    out = cell.tmp / "prediction.json"
    cli("predict", cell.design, "--json", out)
    data = json.loads(out.read_text())
    assert data["format"] == "perfcompose-prediction/1" and data["program"] == "seq(s, s)"
    values = {}
    for p in data["points"]:
        x = p["point"]["x"]
        assert p["components"]["s"]["value"] == pytest.approx(p["value"] / 2, rel=EXACT)
        if p["interval"] is not None:
            assert p["interval"][0] <= p["value"] * (1 + EXACT) and p["value"] <= p["interval"][1] * (1 + EXACT)
        values[x] = p["value"]
    return data["unit"], 2.0, EXACT, values


class _Tables(HTMLParser):
    """The tables of an HTML page, each under the text of the h3 before it."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self._heading, self._in, self._cell = "", "", None

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag == "h3":
            self._in, self._heading = "h3", ""
        elif tag == "table":
            self.tables[self._heading] = []
        elif tag == "tr" and self.tables:
            self.tables[self._heading].append([])
        elif tag in ("td", "th"):
            self._cell = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "h3":
            self._in = ""
        elif tag in ("td", "th") and self._cell is not None:
            self.tables[self._heading][-1].append(self._cell.strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._in == "h3":
            self._heading += data
        if self._cell is not None:
            self._cell += data


def consume_predict_html(cell: Cell) -> Result:
    """``predict --html``: the page's table of predicted times."""
    page = cell.tmp / "prediction.html"
    cli("predict", cell.design, "--html", page)
    parser = _Tables()
    parser.feed(page.read_text())
    header, *rows = parser.tables["predicted time per data element"]
    assert header[1] == "predicted"
    by_x = {row[0]: _shown_time(row[1], "s") for row in rows}
    return "s", 2.0, PRINTED, {x: by_x[f"{x:g}"] for x in XS}


def consume_predict_plot(cell: Cell) -> Result:
    """``predict --plot``: a PNG of the models; the value from the same run's JSON."""
    from PIL import Image

    png, out = cell.tmp / "prediction.png", cell.tmp / "p.json"
    cli("predict", cell.design, "--plot", png, "--json", out)
    with Image.open(png) as image:
        assert image.format == "PNG" and image.size[0] > 100 and image.size[1] > 100
        image.verify()
    data = json.loads(out.read_text())
    return data["unit"], 2.0, EXACT, {p["point"]["x"]: p["value"] for p in data["points"]}


def consume_explore(cell: Cell) -> Result:
    """``explore``: the one-thread-per-stage pipeline of the source and a stage of 1 ps."""
    out = cli("explore", "pipe(s, k)", *cell.option(), "-c", "k=1e-12", "--threads", "3",
              *(a for x in XS for a in ("--x", f"{x:g}")))
    unit = re.search(r"\[(\S+)\]; bottleneck", out).group(1)
    tables = re.split(r"^x = ", out, flags=re.M)[1:]
    values = {}
    for x, text in zip(XS, tables):
        assert text.startswith(f"{x:g},"), text
        row = next(line for line in text.splitlines() if "│ pipe(s, k)" in line)
        values[x] = float(row.split("│")[4])
    return unit, 1.0, PRINTED, values


def consume_python_api(cell: Cell) -> Result:
    """``perfcompose.compose.compose`` over the component the design file describes."""
    parts = dict(load_design(cell.design).components)
    model = compose("seq(s, s)", parts)
    return model.unit, 2.0, EXACT, {x: float(np.asarray(model(**{p: x for p in model.params}))) for x in XS}


CONSUMERS: dict[str, Callable[[Cell], Result]] = {
    "compose_json": consume_compose,
    "compose_at": consume_compose_at,
    "predict_text": consume_predict_text,
    "predict_json": consume_predict_json,
    "predict_html": consume_predict_html,
    "predict_plot": consume_predict_plot,
    "explore": consume_explore,
    "python_api": consume_python_api,
}


@pytest.fixture
def wide(monkeypatch):
    """Tables printed wide enough that no cell wraps."""
    from perfcompose.commands.common import console, err_console

    for c in (console, err_console):
        monkeypatch.setattr(c, "_width", 250)


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> Callable[[str], Source]:
    """Each source built once per test process (its files in a folder of their own), its
    truth computed once per size and design."""
    workdir = tmp_path_factory.mktemp("sources")

    @cache
    def build(name: str) -> Source:
        here = workdir / name
        here.mkdir()
        source = SOURCES[name](here)
        return replace(source, truth=cache(source.truth))

    return build


@pytest.mark.parametrize("consumer", list(CONSUMERS))
@pytest.mark.parametrize("source", list(SOURCES))
def test_seam(source, consumer, tmp_path, monkeypatch, wide, built):
    monkeypatch.chdir(tmp_path)
    src = built(source)
    cell = Cell(src, tmp_path)
    unit, factor, rel, values = CONSUMERS[consumer](cell)
    scale = conversion(src.unit, unit)
    assert set(values) == set(XS)
    for x, value in values.items():
        expected = factor * src.truth(x, cell.truth_design(), "s") * scale
        assert value == pytest.approx(expected, rel=max(rel, src.rel)), f"{source} -> {consumer} at x={x:g}"
        assert math.isfinite(value) and value > 0


# ---------------------------------------------------------------------------------------------
# one design with every source


def test_a_design_of_every_source_predicts_their_sum_in_json_and_html(tmp_path, monkeypatch, wide, built):
    monkeypatch.chdir(tmp_path)
    sources = {name: built(name) for name in SOURCES}
    design = tmp_path / "everything.toml"
    design.write_text(f'program = "seq({", ".join(sources)})"\nunit = "ns"\nx = {list(XS)}\n\n[components]\n'
                      + "".join(f"{name} = {s.table}\n" for name, s in sources.items()))
    out, page = tmp_path / "everything.json", tmp_path / "everything.html"
    cli("predict", design, "--json", out, "--html", page)
    data = json.loads(out.read_text())
    assert data["program"] == f"seq({', '.join(sources)})" and set(data["components"]) == set(sources)
    parser = _Tables()
    parser.feed(page.read_text())
    header, *rows = parser.tables["predicted time per data element"]
    printed = {row[0]: _shown_time(row[1], data["unit"]) for row in rows}
    for p in data["points"]:
        x = p["point"]["x"]
        for name, s in sources.items():
            own = s.truth(x, design, name) * conversion(s.unit, data["unit"])
            got = p["components"][name]
            assert got["value"] == pytest.approx(own, rel=max(EXACT, s.rel)), name
            assert got["unit"] == data["unit"] and got["source"]
        assert p["value"] == pytest.approx(sum(c["value"] for c in p["components"].values()), rel=EXACT)
        assert printed[f"{x:g}"] == pytest.approx(p["value"], rel=PRINTED)
    # the composed model's record reads back as one component with the same values
    _, again = parse_component(f"all={out}")
    for p in data["points"]:
        assert float(again(x=p["point"]["x"])) == pytest.approx(p["value"], rel=EXACT)
