"""Extra-P's one-measurement-per-line inputs: JSON Lines (.jsonl) and Talpas.

Reading them into series of repeated points, detecting them by content, and locating every bad line.
"""
from __future__ import annotations

import pytest

from perfcompose.data import detect, load
from perfcompose.errors import DataFormatError, UnknownFormatError

JSONL = """\
{"params": {"x": 4, "y": 10}, "callpath": "main", "metric": "time", "value": 1.0}
{"params": {"x": 4, "y": 10}, "callpath": "main", "metric": "time", "value": 1.2}

{"params": {"x": 8, "y": 10}, "callpath": "main", "metric": "time", "value": [2.0, 2.1, 2.2]}
{"params": {"y": 10, "x": 4}, "callpath": "main", "metric": "visits", "value": 7}
{"params": {"x": 4, "y": 10}, "callpath": "main->solve", "metric": "time", "value": 0.5}
"""

TALPAS = """\
{"parameters":{"x":20};"metric":"time";"callpath":"compute";"value":82.0}
{"parameters":{"x":20};"metric":"time";"callpath":"compute";"value":81.5}
{"parameters":{"x":30};"metric":"time";"callpath":"compute";"value":180.0}
{"parameters":{"x":20};"metric":"flops";"callpath":"compute";"value":1e9}
"""


def _series(e):
    return {(s.region, s.metric): {p.coordinate: p.values for p in s.points} for s in e.series}


def test_jsonl_lines_of_one_point_are_its_repetitions(write_file):
    e = load(write_file("m.jsonl", JSONL))
    assert e.parameters == ("x", "y")
    assert _series(e) == {
        ("main", "time"): {(4.0, 10.0): (1.0, 1.2), (8.0, 10.0): (2.0, 2.1, 2.2)},
        ("main", "visits"): {(4.0, 10.0): (7.0,)},
        ("main->solve", "time"): {(4.0, 10.0): (0.5,)},
    }


def test_jsonl_without_callpath_and_metric_is_one_unnamed_time_series(write_file):
    e = load(write_file("r.jsonl", '{"params": {"n": 2}, "value": 3}\n{"params": {"n": 4}, "value": 5}\n'))
    (s,) = e.series
    assert (s.region, s.metric) == ("", "time")
    assert [(p.coordinate, p.values) for p in s.points] == [((2.0,), (3.0,)), ((4.0,), (5.0,))]


def test_talpas_semicolons_separate_fields(write_file):
    e = load(write_file("t.txt", TALPAS))
    assert e.parameters == ("x",)
    assert _series(e) == {("compute", "time"): {(20.0,): (82.0, 81.5), (30.0,): (180.0,)},
                          ("compute", "flops"): {(20.0,): (1e9,)}}


def test_talpas_series_may_have_different_points(write_file):
    # Extra-P needs one point set for all series; perfcompose keeps each series' own points
    e = load(write_file("t.txt", TALPAS))
    assert [len(s.points) for s in e.series] == [2, 1]


@pytest.mark.parametrize("name, text, fmt", [
    ("a.jsonl", '{"params": {"x": 1}, "value": 1}\n', "jsonl"),
    ("a.json", '{"params": {"x": 1}, "value": 1}\n{"params": {"x": 2}, "value": 1}\n', "jsonl"),
    ("a.txt", '\n\n{"params": {"x": 1}, "value": 1}\n', "jsonl"),
    ("a.txt", TALPAS, "talpas"),
    ("a.dat", TALPAS, "talpas"),
    ("a.jsonl", "{not json at all\n", "jsonl"),  # the extension decides; the reader locates the error
])
def test_one_measurement_per_line_is_detected_by_content(name, text, fmt, tmp_path):
    assert detect(tmp_path / name, text) == fmt


def test_several_json_values_of_no_known_shape_are_not_supported(write_file):
    path = write_file("two.json", '{"a": 1}\n{"a": 2}\n')
    with pytest.raises(UnknownFormatError) as info:
        load(path)
    text = str(info.value)
    assert text.startswith(f"{path}: format not supported")
    assert "Extra data" not in text
    assert "JSON Lines" in text and "Talpas" in text and "CUBE4" in text


GOOD = '{"params": {"x": 1}, "value": 1}'
TGOOD = '{"parameters":{"x":1};"metric":"time";"callpath":"c";"value":1}'


@pytest.mark.parametrize("name, text, line, column, message", [
    ("a.jsonl", f'{GOOD}\n{{"params": {{"x": 2}}, "value": }}\n', 2, 31,
     "invalid JSON Lines line: Expecting value"),
    ("a.jsonl", f'{GOOD}\n\n{{"params": {{"x": 2}}}}\n', 3, None, "missing property 'value'"),
    ("a.jsonl", f'{GOOD}\n{{"value": 2}}\n', 2, None, "missing property 'params'"),
    ("a.jsonl", f'{GOOD}\n[1, 2]\n', 2, None, "holds one object, not list"),
    ("a.jsonl", f'{GOOD}\n{{"params": {{"y": 2}}, "value": 1}}\n', 2, None, "the first line ['x']"),
    ("a.jsonl", f'{GOOD}\n{{"params": {{"x": "big"}}, "value": 1}}\n', 2, None, "parameter x: \"big\""),
    ("a.jsonl", f'{GOOD}\n{{"params": {{"x": 0}}, "value": 1}}\n', 2, None, "x = 0.0 is not positive"),
    ("a.jsonl", f'{GOOD}\n{{"params": {{"x": 2}}, "value": -1}}\n', 2, None, "negative value -1.0"),
    ("a.jsonl", f'{GOOD}\n{{"params": {{"x": 2}}, "value": NaN}}\n', 2, None, "NaN is not a finite number"),
    ("a.jsonl", f'{GOOD}\n{{"params": {{"x": 2}}, "value": []}}\n', 2, None, "'value' is an empty list"),
    ("a.jsonl", f'{GOOD}\n{{"params": {{"x": 2}}, "value": [1, true]}}\n', 2, None, "true is not a finite"),
    ("a.jsonl", '{"params": {"1x": 2}, "value": 1}\n', 1, None, "'1x' is not an identifier"),
    ("a.jsonl", '{"params": {}, "value": 1}\n', 1, None, "must map parameter names to values"),
    ("a.jsonl", f'{GOOD}\n{{"params": {{"x": 2}}, "callpath": 3, "value": 1}}\n', 2, None,
     "'callpath' must be a string"),
    ("t.txt", f'{TGOOD}\n{{"parameters":{{"x":2}};"metric":"time";"value":1}}\n', 2, None,
     "missing property 'callpath'"),
    ("t.txt", f'{TGOOD}\n{{"parameters":{{"x":2}};"metric":"time";"callpath":"c";"value":}}\n', 2, 62,
     "invalid Talpas line: Expecting value"),
    ("t.txt", f'{TGOOD}\n{{"parameters":{{"x":2}};"metric":"time";"callpath":"c";"value":-3}}\n', 2, None,
     "negative value -3.0"),
])
def test_a_malformed_line_is_located_by_file_line_and_column(name, text, line, column, message, write_file):
    path = write_file(name, text)
    with pytest.raises(DataFormatError) as info:
        load(path)
    err = info.value
    assert (err.line, err.column) == (line, column), str(err)
    where = f"{path}, line {line}" + (f", column {column}" if column else "")
    assert str(err).startswith(where + ": "), str(err)
    assert message in str(err)
    assert text.splitlines()[line - 1] in str(err)  # the offending line is shown


def test_jsonl_of_blank_lines_only_is_empty(write_file):
    with pytest.raises(DataFormatError, match="the file is empty"):
        load(write_file("a.jsonl", "\n \n"))


def test_load_keeps_one_metric_when_asked(write_file):
    e = load(write_file("m.jsonl", JSONL), metric="visits")
    assert [s.label for s in e.series] == ["main/visits"]
