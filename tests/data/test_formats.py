"""The experiment file formats: detection, reading, writing, converting, and every bad input.

Formats: perfcompose JSON, CSV (long form), Extra-P text and Extra-P JSON (current and legacy).
"""
from __future__ import annotations

import importlib.util
import math
import tempfile
from pathlib import Path

import numpy as np
import pytest
from case_files import read_cases
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perfcompose.data import Experiment, Point, Series, detect, dumps, load, save
from perfcompose.data.io import WRITABLE, format_for_output
from perfcompose.errors import DataFormatError, UnknownFormatError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# example file -> the format it is written in
EXAMPLE_FORMATS = {"qsort.json": "perfcompose", "tasks.csv": "csv", "tasks.txt": "extrap-text",
                   "kernel.extrap.json": "extrap-json"}
# a file name ending that perfcompose.data.save maps to each format
SUFFIX = {"perfcompose": "json", "csv": "csv", "extrap-text": "txt", "extrap-json": "extrap.json",
          "extrap-saved": "extra-p"}
X = [1024 * 2 ** k for k in range(9)]


def _points_by_series(e: Experiment) -> dict[tuple[str, str], dict[tuple[float, ...], tuple[float, ...]]]:
    return {(s.region, s.metric): {p.coordinate: p.values for p in s.points} for s in e.series}


def load_text(name: str, text: str) -> Experiment:
    """Load ``text`` as a file called ``name`` (for hypothesis tests, which cannot use tmp_path)."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / name
        path.write_text(text)
        return load(path)


# ---------------------------------------------------------------------------------------------
# The example files

@pytest.mark.parametrize("name, fmt", EXAMPLE_FORMATS.items())
def test_example_is_detected_as_its_format(name, fmt):
    path = EXAMPLES / name
    assert detect(path, path.read_text()) == fmt


@pytest.mark.parametrize("name, fmt", EXAMPLE_FORMATS.items())
def test_example_written_back_by_its_own_writer_is_byte_identical(name, fmt, tmp_path):
    path = EXAMPLES / name
    experiment = load(path)
    assert dumps(experiment, fmt) == path.read_text()
    out = tmp_path / name
    assert save(experiment, out) == fmt  # the extension alone picks the same format
    assert out.read_bytes() == path.read_bytes()


def test_make_examples_rewrites_the_same_bytes(tmp_path):
    spec = importlib.util.spec_from_file_location("make_examples", EXAMPLES / "make_examples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    written = {p.relative_to(tmp_path).as_posix(): p for p in module.main(tmp_path)}
    assert set(EXAMPLE_FORMATS) <= set(written)
    for name, path in written.items():
        assert path.read_bytes() == (EXAMPLES / name).read_bytes(), name


def test_qsort_example_follows_the_paper_model():
    e = load(EXAMPLES / "qsort.json")
    assert e.parameters == ("x",)
    (s,) = e.series
    assert (s.region, s.metric, s.unit) == ("qsort", "time", "ns")
    assert [p.coordinate[0] for p in s.points] == X
    assert all(len(p.values) == 5 for p in s.points)
    truth = 1034.17 * np.array(X) * np.log2(X)
    np.testing.assert_allclose(s.aggregated("median"), truth, rtol=0.05)
    assert all(0.003 < p.cv < 0.05 for p in s.points)  # 2 % noise


def test_tasks_examples_hold_nop_inc_and_qsort():
    truths = {"nop": 5422.97 + 0 * np.array(X, dtype=float), "inc": 536.185 * np.array(X, dtype=float),
              "qsort": 1034.17 * np.array(X) * np.log2(X)}
    for name, unit in (("tasks.csv", "ns"), ("tasks.txt", "")):  # Extra-P text has no unit
        e = load(EXAMPLES / name)
        assert e.regions == ("nop", "inc", "qsort")
        assert e.metrics == ("time",)
        for s in e.series:
            assert s.unit == unit
            assert [p.coordinate[0] for p in s.points] == X
            assert all(len(p.values) == 5 for p in s.points)
            rtol = 0.3 if s.region == "nop" else 0.05
            np.testing.assert_allclose(s.aggregated("median"), truths[s.region], rtol=rtol)
        nop_cv = np.mean([p.cv for p in e.get(region="nop").points])
        inc_cv = np.mean([p.cv for p in e.get(region="inc").points])
        assert nop_cv > 0.1 > 0.05 > inc_cv


def test_tasks_csv_and_txt_hold_the_same_measurements():
    assert _points_by_series(load(EXAMPLES / "tasks.csv")) == _points_by_series(load(EXAMPLES / "tasks.txt"))


def test_kernel_example_is_two_parameter_grid():
    e = load(EXAMPLES / "kernel.extrap.json")
    assert e.parameters == ("p", "n")
    s = e.get(region="kernel")
    coords = s.coordinates()
    assert coords.shape == (25, 2)
    assert sorted(set(coords[:, 0])) == [4, 8, 16, 32, 64]
    assert sorted(set(coords[:, 1])) == [10, 20, 40, 80, 160]
    truth = 2 + 0.5 * coords[:, 0] * np.sqrt(coords[:, 1])
    np.testing.assert_allclose(s.aggregated("median"), truth, rtol=0.03)


# ---------------------------------------------------------------------------------------------
# read -> write -> read

SAMPLES = {
    "perfcompose": ("one.json", """{
  "format": "perfcompose-experiment/1",
  "parameters": ["x"],
  "region": "qsort",
  "metric": "time",
  "unit": "ns",
  "points": [
    {"coordinate": {"x": 4}, "values": [10.1, 9.9, 10.0]},
    {"coordinate": {"x": 8.5}, "values": [18.2]}
  ]
}
"""),
    "perfcompose-series": ("many.json", """{
  "parameters": ["p", "n"],
  "series": [
    {"region": "a", "metric": "time", "unit": "s",
     "points": [{"coordinate": {"p": 4, "n": 10}, "values": [1.5, 1.25]},
                {"coordinate": {"n": 20, "p": 4}, "values": [2.5]}]},
    {"metric": "bytes", "unit": "B",
     "points": [{"coordinate": {"p": 8, "n": 10}, "values": [100, 101]}]}
  ]
}
"""),
    "csv": ("t.csv", "region,metric,unit,x,repetition,value\n"
                     "main,time,s,4,1,10.1\nmain,time,s,4,2,9.9\nmain,time,s,8,1,18.2\n"
                     "main,bytes,B,4,1,400\nmain,bytes,B,8,1,800\n"),
    "csv-minimal": ("m.csv", "x,value\n1,0.5\n1,0.75\n2,1e-3\n"),
    "extrap-text": ("t.txt", "# comment\nPARAMETER p\nPARAMETER n\nPOINTS ( 4 10 ) ( 4 20 )\n\nREGION main\n"
                             "METRIC time\nDATA 8.31 8.32\nDATA 10.9\nMETRIC bytes\nDATA 1\nDATA 2\n"
                             "REGION main->solve\nMETRIC time\nDATA 3.05\nDATA 4.5 4.75\n"),
    "extrap-json": ("e.json", '{"parameters": ["x"], "measurements": {\n'
                              ' "main": {"time": [{"point": [4], "values": [14.0, 14.04]},\n'
                              '                   {"point": [8], "values": [18.0]}],\n'
                              '          "bytes": [{"point": [4], "values": [1]},\n'
                              '                    {"point": [8], "values": [2]}]},\n'
                              ' "main->solve": {"time": [{"point": 4, "values": [5]},\n'
                              '                          {"point": 8, "values": [6]}]}}}\n'),
    "extrap-json-legacy": ("legacy.json", """{"parameters": [{"id": 1, "name": "x"}],
 "callpaths": [{"id": 2, "name": "main->solve"}, {"id": 1, "name": "main"}],
 "metrics": [{"id": 1, "name": "time"}],
 "coordinates": [{"id": 1, "parameter_value_pairs": [{"parameter_id": 1, "parameter_value": 4}]},
                 {"id": 2, "parameter_value_pairs": [{"parameter_id": 1, "parameter_value": 8}]}],
 "measurements": [{"coordinate_id": 1, "callpath_id": 1, "metric_id": 1, "value": 14.0},
                  {"coordinate_id": 1, "callpath_id": 1, "metric_id": 1, "value": 14.04},
                  {"coordinate_id": 2, "callpath_id": 1, "metric_id": 1, "value": 18.0},
                  {"coordinate_id": 1, "callpath_id": 2, "metric_id": 1, "value": 5.0},
                  {"coordinate_id": 2, "callpath_id": 2, "metric_id": 1, "value": 6.0}]}
"""),
}
SAMPLE_FORMAT = {"perfcompose": "perfcompose", "perfcompose-series": "perfcompose", "csv": "csv",
                 "csv-minimal": "csv", "extrap-text": "extrap-text", "extrap-json": "extrap-json",
                 "extrap-json-legacy": "extrap-json"}


@pytest.mark.parametrize("sample", SAMPLES)
def test_read_write_read_gives_an_equal_experiment(sample, write_file, tmp_path):
    name, text = SAMPLES[sample]
    fmt = SAMPLE_FORMAT[sample]
    first = load(write_file(name, text))
    assert detect(Path(name), text) == fmt
    again = tmp_path / ("again." + SUFFIX[fmt])
    save(first, again, fmt)
    second = load(again, fmt)
    assert second == first
    assert [s.unit for s in second.series] == [s.unit for s in first.series]


def test_minimal_csv_sample_is_one_unnamed_series():
    assert load_text("m.csv", SAMPLES["csv-minimal"][1]) == \
        Experiment.single(["x"], [((1,), (0.5, 0.75)), ((2,), (1e-3,))])


def test_perfcompose_json_series_form_reads_units_regions_and_coordinate_names():
    e = load_text("many.json", SAMPLES["perfcompose-series"][1])
    assert e.parameters == ("p", "n")
    a, b = e.series
    assert (a.region, a.metric, a.unit, b.region, b.metric, b.unit) == ("a", "time", "s", "", "bytes", "B")
    assert a.points[1] == Point((4.0, 20.0), (2.5,))  # coordinate given by name, in any order


def test_extrap_text_reads_regions_metrics_and_repetitions():
    e = load_text("t.txt", SAMPLES["extrap-text"][1])
    assert e.parameters == ("p", "n")
    assert [s.label for s in e.series] == ["main/time", "main/bytes", "main->solve/time"]
    assert e.get("time", "main").points == (Point((4.0, 10.0), (8.31, 8.32)), Point((4.0, 20.0), (10.9,)))
    assert e.get("time", "main->solve").points[1].values == (4.5, 4.75)


def test_extrap_json_reads_scalar_point_for_one_parameter():
    e = load_text("e.json", SAMPLES["extrap-json"][1])
    assert e.get("time", "main->solve").points == (Point((4.0,), (5.0,)), Point((8.0,), (6.0,)))


def test_extrap_legacy_json_uses_ids_as_positions_in_the_id_sorted_lists():
    e = load_text("legacy.json", SAMPLES["extrap-json-legacy"][1])
    assert e.get(region="main").points == (Point((4.0,), (14.0, 14.04)), Point((8.0,), (18.0,)))
    assert e.get(region="main->solve").points == (Point((4.0,), (5.0,)), Point((8.0,), (6.0,)))


def test_extrap_legacy_json_is_written_as_the_current_format():
    e = load_text("legacy.json", SAMPLES["extrap-json-legacy"][1])
    text = dumps(e, "extrap-json")
    assert '"callpaths"' not in text and '"measurements"' in text


def test_csv_rows_of_one_coordinate_are_its_repetitions_in_file_order():
    e = load_text("c.csv", "x,value,region\n1,2,a\n2,1,a\n1,3,a\n")
    assert e.get(region="a").points == (Point((1.0,), (2.0, 3.0)), Point((2.0,), (1.0,)))


def test_csv_callpath_column_names_the_region_and_repetition_is_ignored():
    e = load_text("c.csv", "callpath,x,repetition,value\nm,1,7,2\nm,1,3,3\n")
    assert e.get(region="m").points == (Point((1.0,), (2.0, 3.0)),)
    assert e.parameters == ("x",)


def test_csv_quoted_region_with_comma_round_trips():
    e = load_text("c.csv", 'region,metric,x,value\n"a,b",time,1,2\n')
    assert e.regions == ("a,b",)
    assert load_text("d.csv", dumps(e, "csv")) == e


def test_csv_without_metric_and_unit_columns_is_time_without_a_unit():
    (s,) = load_text("m.csv", "x,value\n1,2\n").series
    assert (s.region, s.metric, s.unit) == ("", "time", "")


def test_extrap_text_accepts_what_extrap_accepts(write_file):
    text = ("# comment\r\nPARAMETER p\r\nPARAMETER n\r\nPOINTS (4 10)(4 20)\r\n"
            "POINTS (  8   10 ) ( 8 20 )\r\n"
            "\r\nREGION main\r\nMETRIC time\r\nDATA 1\r\nDATA 2\r\nDATA 3\r\nDATA 4\r\n"
            "REGION other\r\nDATA 5\r\nDATA 6\r\nDATA 7\r\nDATA 8\r\n")
    e = load(write_file("crlf.txt", text))
    assert [c for c in e.series[0].coordinates().tolist()] == [[4, 10], [4, 20], [8, 10], [8, 20]]
    # the metric carries over to the next region, as in Extra-P
    assert [s.label for s in e.series] == ["main/time", "other/time"]
    assert e.get(region="other").aggregated().tolist() == [5, 6, 7, 8]


def test_extrap_text_one_parameter_points_in_parentheses(write_file):
    e = load(write_file("p.txt", "PARAMETER x\nPOINTS (4.0) (8.0)\nREGION r\nDATA 1\nDATA 2\n"))
    assert [p.coordinate for p in e.series[0].points] == [(4.0,), (8.0,)]


def test_extrap_text_accepts_a_tab_after_the_keyword(write_file):
    e = load(write_file("tab.txt", "PARAMETER\tx\nPOINTS\t1\t2\nREGION r\nDATA\t1 2\nDATA 3\n"))
    assert e.get(region="r").points == (Point((1.0,), (1.0, 2.0)), Point((2.0,), (3.0,)))


def test_extrap_text_writer_groups_points_for_two_parameters_and_names_the_empty_region_main():
    e = Experiment.single(["p", "n"], [((4, 10), (1.5,)), ((4, 20.5), (2.0, 2.25))])
    assert dumps(e, "extrap-text") == ("PARAMETER p\nPARAMETER n\nPOINTS ( 4 10 ) ( 4 20.5 )\n\n"
                                       "REGION main\nMETRIC time\nDATA 1.5\nDATA 2.0 2.25\n")


def test_extrap_text_writer_refuses_more_than_four_parameters():
    e = Experiment.single(list("abcde"), [((1, 1, 1, 1, 1), (1.0,))])
    with pytest.raises(DataFormatError, match="at most 4 parameters"):
        dumps(e, "extrap-text")


TWO_POINT_SETS = Experiment(("x",), (Series("time", (Point((1.0,), (1.0,)),), "a"),
                                     Series("time", (Point((2.0,), (1.0,)),), "b")))


def test_extrap_text_writer_refuses_series_at_different_points():
    e = TWO_POINT_SETS
    with pytest.raises(DataFormatError, match="other points"):
        dumps(e, "extrap-text")


def test_extrap_json_writer_refuses_series_at_different_points():
    e = TWO_POINT_SETS
    with pytest.raises(DataFormatError, match="other points"):
        dumps(e, "extrap-json")


def test_writers_keep_series_order_at_different_points_in_json_and_csv():
    e = TWO_POINT_SETS
    for fmt in ("perfcompose", "csv"):
        assert load_text("o." + SUFFIX[fmt], dumps(e, fmt)) == e


# Random experiments through every writer and reader

names = st.text(st.sampled_from("abcxyz_->0123 "), min_size=1, max_size=8).map(str.strip).filter(
    lambda s: s and not s.startswith("#"))
positive = st.floats(min_value=1e-6, max_value=1e12, allow_nan=False, allow_infinity=False)
nonneg = st.floats(min_value=0, max_value=1e15, allow_nan=False, allow_infinity=False)


@st.composite
def experiments(draw, extrap: bool):
    """Random experiments; ``extrap``: what Extra-P formats hold (no unit, named regions, one point set)."""
    params = draw(st.sampled_from([("x",), ("p", "n"), ("a", "b", "c")]))
    component = st.one_of(positive, st.integers(1, 10 ** 6).map(float))
    coords = draw(st.lists(st.tuples(*[component for _ in params]), min_size=1, max_size=4, unique=True))
    metrics = st.sampled_from(["time", "bytes", "flops"])
    keys = draw(st.lists(st.tuples(names, metrics), min_size=1, max_size=3, unique=True))
    series = []
    for region, metric in keys:
        pts = tuple(Point(c, tuple(draw(st.lists(nonneg, min_size=1, max_size=3)))) for c in coords)
        unit = "" if extrap else draw(st.sampled_from(["s", "ns", "B"]))
        series.append(Series(metric, pts, region, unit))
    return Experiment(params, tuple(series))


FORMAT_PROPERTY = settings(max_examples=40, deadline=None, derandomize=True,
                           suppress_health_check=[HealthCheck.too_slow])


@FORMAT_PROPERTY
@given(experiments(extrap=False), st.sampled_from(["perfcompose", "csv"]))
def test_random_experiments_round_trip_through_perfcompose_json_and_csv(e, fmt):
    back = load_text("r." + SUFFIX[fmt], dumps(e, fmt))
    assert back == e
    assert [s.unit for s in back.series] == [s.unit for s in e.series]


@FORMAT_PROPERTY
@given(experiments(extrap=True), st.sampled_from(["extrap-text", "extrap-json"]))
def test_random_experiments_round_trip_through_extrap_formats(e, fmt):
    assert load_text("r." + SUFFIX[fmt], dumps(e, fmt)) == e


# ---------------------------------------------------------------------------------------------
# Converting between formats

@pytest.mark.parametrize("source", EXAMPLE_FORMATS)
@pytest.mark.parametrize("target", WRITABLE)
def test_convert_preserves_points_and_values(source, target, tmp_path):
    original = load(EXAMPLES / source)
    out = tmp_path / ("converted." + SUFFIX[target])
    assert save(original, out) == target
    converted = load(out)
    assert converted.parameters == original.parameters
    assert _points_by_series(converted) == _points_by_series(original)
    if target in ("perfcompose", "csv"):  # the Extra-P formats have no unit
        assert converted == original


# ---------------------------------------------------------------------------------------------
# Detection and format names

@pytest.mark.parametrize("name, text, fmt", [
    ("a.dat", "# measured\nPARAMETER x\nPOINTS 1\nREGION r\nDATA 1\n", "extrap-text"),
    ("a.json", "PARAMETER x\nPOINTS 1\nREGION r\nDATA 1\n", "extrap-text"),
    ("a.dat", "x,value\n1,2\n", "csv"),
    ("a.txt", '{"parameters": ["x"], "measurements": {"r": {"t": [{"point": [1], "values": [1]}]}}}',
     "extrap-json"),
    ("a.dat", '{"parameters": [{"id": 1, "name": "x"}], "callpaths": []}', "extrap-json"),
    ("a.dat", '{"parameters": ["x"], "metric": "t", "points": []}', "perfcompose"),
    ("a.csv", "n;value\n1;2\n", "csv"),
    ("a.txt", "some notes\n", "extrap-text"),
    ("a.json", "not json", "perfcompose"),
])
def test_detect_reads_content_first_and_extension_second(name, text, fmt):
    assert detect(Path(name), text) == fmt


def test_detect_unknown_content_with_unknown_extension_raises():
    with pytest.raises(UnknownFormatError, match="cannot tell the format") as info:
        detect(Path("notes.xyz"), "hello world\n")
    assert str(info.value).startswith("notes.xyz: ")


def test_load_with_explicit_format_overrides_detection(write_file):
    path = write_file("data.xyz", "x,value\n1,2\n")
    assert load(path, "csv") == Experiment.single(["x"], [((1,), (2.0,))])


def test_load_with_unknown_format_name_raises(write_file):
    with pytest.raises(UnknownFormatError, match="unknown format 'excel'"):
        load(write_file("data.csv", "x,value\n1,2\n"), "excel")


def test_dumps_with_unknown_format_name_raises():
    with pytest.raises(UnknownFormatError, match="choose one of perfcompose, csv, extrap-text, extrap-json"):
        dumps(Experiment.single(["x"], [((1,), (2.0,))]), "xml")


@pytest.mark.parametrize("name, fmt", [("a.csv", "csv"), ("a.txt", "extrap-text"),
                                       ("a.extrap", "extrap-text"), ("a.json", "perfcompose"),
                                       ("a.extrap.json", "extrap-json"), ("a_extrap.json", "extrap-json"),
                                       ("A.CSV", "csv"), ("a.extra-p", "extrap-saved")])
def test_output_format_follows_the_extension(name, fmt):
    assert format_for_output(Path(name)) == fmt


def test_save_to_unknown_extension_raises_and_writes_nothing(tmp_path):
    out = tmp_path / "a.xyz"
    with pytest.raises(UnknownFormatError, match="extension '.xyz'"):
        save(Experiment.single(["x"], [((1,), (2.0,))]), out)
    assert not out.exists()


def test_save_with_explicit_format(tmp_path):
    e = Experiment.single(["x"], [((1,), (2.0,))], region="r")
    out = tmp_path / "a.dat"
    assert save(e, out, "extrap-text") == "extrap-text"
    assert load(out) == e


# ---------------------------------------------------------------------------------------------
# Bad input: each raises DataFormatError / UnknownFormatError naming the file (and the line)

def _json_points(*points: str, params='["x"]') -> str:
    """perfcompose JSON with point k on line k + 2."""
    return '{"parameters": ' + params + ', "metric": "time",\n "points": [\n' + ",\n".join(points) + "]}\n"


def _extrap_points(*points: str, params='["x"]') -> str:
    """Extra-P JSON with point k on line k + 1."""
    return '{"parameters": ' + params + ', "measurements": {"r": {"time": [\n' + ",\n".join(points) + "]}}}\n"


P1 = '{"coordinate": {"x": 1}, "values": [1]}'
E1 = '{"point": [1], "values": [1]}'

# by file name and error: id, content, line (None: the format or the problem has no line), text in the message
DFE, UFE = DataFormatError, UnknownFormatError
LEGACY_BAD = ('{"parameters": [{"id": 1, "name": "x"}], "callpaths": [{"id": 1, "name": "m"}], '
              '"metrics": [], "coordinates": [], '
              '"measurements": [{"coordinate_id": 1, "callpath_id": 1, "metric_id": 1, "value": 1}]}')
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(128, 256))


def _pj(coordinate: str, values: str) -> str:
    return '{"coordinate": ' + coordinate + ', "values": ' + values + "}"


def _ej(point: str, values: str) -> str:
    return '{"point": ' + point + ', "values": ' + values + "}"


def _cases(name: str, *cases: tuple[str, str, int | None, str], error: type = DFE) -> list:
    """Bad inputs of one format, each read from a file called ``name``: (id, content, line, message)."""
    return [pytest.param(name, content, error, line, message, id=case) for case, content, line, message in cases]


def _from_file(key: str) -> list[tuple[str, str, int | None, str]]:
    """The bad inputs of one format in bad_inputs.toml: (id, content, line, message)."""
    return [(c["id"], c["content"], c.get("line"), c["message"])
            for c in read_cases(Path(__file__).with_name("bad_inputs.toml"), key)]


BAD_INPUTS = [
    # CSV and Extra-P text
    *_cases("a.csv", *_from_file("csv")),
    *_cases("a.txt", *_from_file("text")),
    pytest.param("notes.txt", "hello world, this is not data\n", DFE, 1,
                 "unknown keyword 'hello'", id="text random words"),
    # perfcompose JSON
    *_cases("a.json",
            ("json invalid", '{"parameters": ["x"],\n "metric": "time",,\n}', 2, "invalid JSON"),
            ("json not an object", "[1, 2, 3]\n", 1, "must hold one JSON object"),
            ("json missing parameters", '{"metric": "time", "points": []}', None,
             "missing or invalid field 'parameters'"),
            ("json parameters not a list", '{\n"parameters": "x", "metric": "t", "points": []}', 2,
             "missing or invalid field 'parameters'"),
            ("json missing metric", '{"parameters": ["x"],\n "points": [' + P1 + "]}", None, "missing field 'metric'"),
            ("json missing points", '{"parameters": ["x"], "metric": "t"}', None, "missing field 'points'"),
            ("json missing values", _json_points(P1, '{"coordinate": {"x": 2}}'), 4,
             "point 2: needs 'coordinate' and 'values'"),
            ("json non-numeric value", _json_points(P1, _pj('{"x": 2}', '["a"]')), 4,
             'value 1 must be a number, got "a"'),
            ("json boolean value", _json_points(_pj('{"x": 2}', "[true]")), 3, "must be a number, got true"),
            ("json non-numeric coordinate", _json_points(_pj('{"x": "big"}', "[1]")), 3,
             "parameter x must be a number"),
            ("json NaN", _json_points(P1, _pj('{"x": 2}', "[NaN]")), 4, "is not finite"),
            ("json Infinity", _json_points(P1, _pj('{"x": 2}', "[1]"), _pj('{"x": 3}', "[1, Infinity]")), 5,
             "is not finite"),
            ("json values not a list", _json_points(_pj('{"x": 2}', "3")), 3, "'values' must be a list"),
            ("json parameters differ between points", _json_points(P1, _pj('{"y": 2}', "[1]")), 4,
             "coordinate names ['y'] differ from the parameters ['x']"),
            ("json extra parameter in a point", _json_points(P1, _pj('{"x": 2, "n": 1}', "[1]")), 4,
             "differ from the parameters"),
            ("json negative time", _json_points(P1, _pj('{"x": 2}', "[-1]")), 4, "negative value -1.0"),
            ("json duplicate coordinate", _json_points(P1, P1), 4, "duplicate coordinate"),
            ("json point without repetitions", _json_points(P1, _pj('{"x": 2}', "[]")), 4, "no repetitions"),
            ),
    # Extra-P JSON
    *_cases("a.json",
            ("extrap json invalid", '{"parameters": ["x"],\n "measurements": {]}', 2, "invalid JSON"),
            ("extrap json missing parameters", '{"measurements": {"r": {"t": [' + E1 + "]}}}", None,
             "missing or invalid 'parameters'"),
            ("extrap json empty measurements", '{"parameters": ["x"], "measurements": {}}', 1,
             "missing or empty 'measurements'"),
            ("extrap json callpath not an object", '{"parameters": ["x"],\n "measurements": {"r": [1]}}', 2,
             "callpath 'r': expected an object of metrics"),
            ("extrap json missing values", _extrap_points(E1, '{"point": [2]}'), 3, "needs 'point' and 'values'"),
            ("extrap json values not a list", _extrap_points(_ej("[2]", "1")), 2, "'values' must be a list"),
            ("extrap json non-numeric value", _extrap_points(E1, _ej("[2]", '["a"]')), 3, '"a" is not a finite number'),
            ("extrap json NaN", _extrap_points(E1, _ej("[2]", "[NaN]")), 3, "NaN is not a finite number"),
            ("extrap json Infinity coordinate", _extrap_points(E1, _ej("[Infinity]", "[1]")), 3,
             "Infinity is not a finite number"),
            ("extrap json parameters differ between points",
             _extrap_points(_ej("[1, 2]", "[1]"), _ej("[2]", "[1]"), params='["p", "n"]'), 3,
             "1 coordinates for 2 parameters"),
            ("extrap json malformed legacy", LEGACY_BAD, None, "malformed legacy Extra-P JSON"),
            ("extrap json negative time", _extrap_points(E1, _ej("[2]", "[-1]")), 3, "negative value -1.0"),
            ("extrap json duplicate point", _extrap_points(E1, E1), 3, "duplicate coordinate"),
            ("extrap json point without repetitions", _extrap_points(E1, _ej("[2]", "[]")), 3, "no repetitions"),
            ),
    # unknown, empty, binary
    pytest.param("data.xyz", "lorem ipsum dolor\nsit amet 3.5\n", UFE, None,
                 "cannot tell the format of this file", id="random text with unknown extension"),
    pytest.param("image.dat", PNG, UFE, None, "not a text file", id="binary file"),
    pytest.param("data.csv", bytes(range(256)) * 4, UFE, None, "not a text file", id="binary file with csv extension"),
    pytest.param("a.json", "", DFE, None, "the file is empty", id="empty json"),
]


@pytest.mark.parametrize("name, content, error, line, message", BAD_INPUTS)
def test_bad_input_is_rejected_naming_file_and_line(name, content, error, line, message, write_file):
    path = write_file(name, content)
    with pytest.raises(error) as info:
        load(path)
    err = info.value
    text = str(err)
    first = text.split("\n")[0]
    assert first.startswith(str(path)), text
    assert message in text
    if line is not None:
        assert err.line == line, text
        assert first.startswith(f"{path}, line {line}"), text
    assert type(err) is error  # not a bare ValueError/KeyError/TypeError leaking out


@pytest.mark.parametrize("name, content, message", [
    ("a.json", _json_points(P1, '{"values": [1]}', '{"coordinate": {"x": 3}, "values": [1]}'),
     "point 2: needs 'coordinate' and 'values'"),
    ("e.json", _extrap_points(E1, '{"values": [1]}', '{"point": [3], "values": [1]}'),
     "point 2: needs 'point' and 'values'"),
], ids=["perfcompose json", "extrap json"])
def test_point_without_coordinate_is_not_blamed_on_the_next_point_line(name, content, message, write_file):
    path = write_file(name, content)
    with pytest.raises(DataFormatError, match=message) as info:
        load(path)
    own_line = 4 if name == "a.json" else 3
    assert info.value.line in (None, own_line)  # no line is better than another point's line


def test_missing_file_and_directory_are_data_format_errors(tmp_path):
    with pytest.raises(DataFormatError, match="no such file") as info:
        load(tmp_path / "nope.csv")
    assert str(info.value).startswith(str(tmp_path / "nope.csv"))
    with pytest.raises(DataFormatError, match="is a directory"):
        load(tmp_path)


def test_bad_text_value_error_points_a_caret_at_the_token(write_file):
    path = write_file("a.txt", "PARAMETER x\nPOINTS 1 2\nREGION r\nDATA 1 2\nDATA 1.5 zz\n")
    with pytest.raises(DataFormatError) as info:
        load(path)
    assert info.value.column == 10
    lines = str(info.value).split("\n")
    assert lines[1] == "    DATA 1.5 zz"
    assert lines[2].index("^") == lines[1].index("zz")


def test_invalid_json_error_has_line_column_and_source(write_file):
    path = write_file("a.json", '{"parameters": ["x"],\n "metric": "time",,\n}')
    with pytest.raises(DataFormatError) as info:
        load(path)
    assert (info.value.line, info.value.column) == (2, 19)
    assert '"metric": "time",,' in str(info.value)


def test_bad_input_never_leaks_a_non_perfcompose_exception(write_file):
    # a sample of structurally wrong documents that a careless reader would crash on
    docs = ['{"parameters": ["x"], "series": {}}', '{"parameters": ["x"], "series": [1]}',
            '{"parameters": ["x"], "metric": "t", "points": [1]}',
            '{"parameters": ["x"], "metric": "t", "points": [{"coordinate": [1], "values": [1]}]}',
            '{"parameters": ["x"], "measurements": {"r": {"t": {}}}}',
            '{"parameters": ["x"], "measurements": {"r": {"t": [5]}}}',
            '{"parameters": 1, "callpaths": 2}',
            '{"parameters": [{"id": 1}], "callpaths": [], "metrics": [], "coordinates": [], '
            '"measurements": []}']
    for k, doc in enumerate(docs):
        path = write_file(f"d{k}.json", doc)
        with pytest.raises(DataFormatError) as info:
            load(path)
        assert str(info.value).startswith(str(path))


def test_non_finite_values_in_written_files_cannot_occur():
    # validation rejects them before any writer sees them
    with pytest.raises(DataFormatError):
        Experiment.single(["x"], [((1,), (math.inf,))])
