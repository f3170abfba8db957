"""CUBE4 profiles: parameters from experiment folder names, one series per call path, located errors.

The profiles are written here: a ``.cubex`` file is a tar of ``anchor.xml`` (metrics, regions,
call tree, locations) and, per metric, an index of call-tree nodes and their values by location.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from cubex_files import dense_metric, write_cubex
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.data import cube, detect, load
from perfcompose.data.cube import folder_parameters, parameters
from perfcompose.errors import DataFormatError, UnknownFormatError
from perfcompose.extras import MissingExtraError

CALLEES = ("main", "init", "solve")  # cnode k calls region k; main calls init and solve


def _anchor(locations: int) -> str:
    regions = "".join(f'<region id="{k}" mod="m.c" begin="1" end="2"><name>{n}</name></region>'
                      for k, n in enumerate(CALLEES))
    locs = "".join(f'<location Id="{k}"><name>thread {k}</name><rank>{k}</rank><type>thread</type></location>'
                   for k in range(locations))
    return ('<?xml version="1.0" encoding="UTF-8"?><cube version="4.4"><metrics>'
            '<metric id="0" type="INCLUSIVE"><disp_name>Time</disp_name><uniq_name>time</uniq_name>'
            '<dtype>DOUBLE</dtype><uom>sec</uom></metric>'
            '<metric id="1" type="EXCLUSIVE"><disp_name>Visits</disp_name><uniq_name>visits</uniq_name>'
            '<dtype>UINT64</dtype><uom>occ</uom></metric></metrics>'
            f'<program>{regions}<cnode id="0" calleeId="0"><cnode id="1" calleeId="1"/>'
            '<cnode id="2" calleeId="2"/></cnode></program>'
            '<system><systemtreenode Id="0"><name>machine</name><class>machine</class>'
            f'<locationgroup Id="0"><name>rank 0</name><rank>0</rank><type>process</type>{locs}'
            '</locationgroup></systemtreenode></system></cube>')


def write_profile(path: Path, inclusive_time: list[list[float]],
                  visits: list[list[int]] | None = None) -> Path:
    """A ``.cubex`` with ``time`` (inclusive, per node then location) and ``visits`` (exclusive)."""
    time = np.array(inclusive_time, dtype=float)
    visits_arr = np.array(visits if visits is not None else np.ones_like(time), dtype=np.uint64)
    members = {"anchor.xml": _anchor(time.shape[1]).encode()}
    members["0.index"], members["0.data"] = dense_metric(time, "<f8")
    members["1.index"], members["1.data"] = dense_metric(visits_arr, "<u8")
    return write_cubex(path, members)


def _run(directory: Path, folder: str, scale: float, name: str = "profile.cubex", locations: int = 1) -> Path:
    """A run whose main takes 3*scale inclusive: init 1*scale, solve 1.5*scale (per location)."""
    rows = [[3.0 * scale * (k + 1) for k in range(locations)], [1.0 * scale] * locations,
            [1.5 * scale] * locations]
    return write_profile(directory / folder / name, rows)


@pytest.fixture
def experiment_dir(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    for x in (1, 2, 4):
        _run(root, f"app.x{x}y7.r1", x)
    _run(root, "app.x4y7.r2", 4.4)  # a second run of x=4: a repetition
    (root / "notes.txt").write_text("not a run")
    (root / "_empty").mkdir()
    return root


# ---------------------------------------------------------------------------------------------
# Folder names

@pytest.mark.parametrize("name, pairs", [
    ("mm.x10y1z1.r1", [("x", 10), ("y", 1), ("z", 1)]),
    ("x10y1z1", [("x", 10), ("y", 1), ("z", 1)]),
    ("mm.x1.1y1.1z1.1", [("x", 1.1), ("y", 1.1), ("z", 1.1)]),
    ("mm.x20,5.y20,5.z1,5.r1", [("x", 20.5), ("y", 20.5), ("z", 1.5)]),
    ("mm.x21.5,y21,5,z1.15.r1", [("x", 21.5), ("y", 21.5), ("z", 1.15)]),
    ("lulesh.p64size30.r12", [("p", 64), ("size", 30)]),
    ("example.f3", [("f", 3)]),
])
def test_folder_name_gives_parameter_values(name, pairs):
    assert folder_parameters(Path(name)) == pairs


@pytest.mark.parametrize("name, message", [
    ("mm.r1", "cannot read parameter values"),
    ("mm.42", "cannot read parameter values"),
    ("mm.x1.2.3y4", "'1.2.3' in the folder name"),
    ("mm.x-1", "'x-' in the folder name 'mm.x-1' is not a parameter name"),
])
def test_folder_name_without_values_is_an_error_naming_the_folder(name, message):
    with pytest.raises(DataFormatError, match=message) as info:
        folder_parameters(Path("runs") / name)
    assert str(info.value).startswith(str(Path("runs") / name))


def test_constant_parameters_are_dropped():
    names, coords = parameters([Path("a.x1y5"), Path("a.x2y5"), Path("a.x4y5")])
    assert names == ("x",) and coords == [(1.0,), (2.0,), (4.0,)]


def test_folders_naming_other_parameters_are_an_error():
    message = r"names parameters \['y', 'x'\], but a.x1y1 names \['x', 'y'\]"
    with pytest.raises(DataFormatError, match=message):
        parameters([Path("a.x1y1"), Path("a.y2x1")])


def test_folders_where_nothing_varies_are_an_error():
    with pytest.raises(DataFormatError, match="no parameter varies"):
        parameters([Path("a.x1y1.r1"), Path("a.x1y1.r2")])


# ---------------------------------------------------------------------------------------------
# Reading

def test_directory_of_runs_gives_exclusive_time_per_call_path(experiment_dir):
    e = load(experiment_dir)
    assert e.parameters == ("x",)
    assert [(s.region, s.metric, s.unit) for s in e.series] == [
        ("main", "time", "s"), ("main->init", "time", "s"), ("main->solve", "time", "s")]
    main = e.get(region="main")
    # exclusive: main's 3*x minus its children's 2.5*x; the two runs of x=4 are repetitions
    assert [p.coordinate for p in main.points] == [(1.0,), (2.0,), (4.0,)]
    np.testing.assert_allclose([v for p in main.points for v in p.values], [0.5, 1.0, 2.0, 2.2])
    assert [len(p.values) for p in main.points] == [1, 1, 2]
    np.testing.assert_allclose(e.get(region="main->solve").aggregated("max"), [1.5, 3.0, 6.6])


def test_inclusive_values_on_request(experiment_dir):
    e = cube.read(experiment_dir, inclusive=True)
    np.testing.assert_allclose(e.get(region="main").aggregated("min"), [3.0, 6.0, 12.0])


def test_another_metric_can_be_chosen(experiment_dir):
    e = load(experiment_dir, metric="visits")
    assert {(s.metric, s.unit) for s in e.series} == {("visits", "occ")}
    assert e.get(region="main->init").aggregated("mean").tolist() == [1.0, 1.0, 1.0]


def test_profiles_in_one_folder_are_repetitions(tmp_path):
    for x in (1, 2):
        for k in (1, 2):
            _run(tmp_path, f"a.x{x}", x * k, name=f"profile{k}.cubex")
    e = load(tmp_path)
    assert [len(p.values) for p in e.get(region="main->init").points] == [2, 2]


@pytest.mark.parametrize("scaling, expected", [
    ("weak", [0.5, 3.5]),  # every location a repetition: main's exclusive time per thread
    ("strong", [4.0]),  # the sum over locations
])
def test_locations_combine_by_scaling(tmp_path, scaling, expected):
    for x in (1, 2):
        _run(tmp_path, f"a.x{x}", x, locations=2)
    main = cube.read(tmp_path, scaling=scaling).get(region="main")
    np.testing.assert_allclose(main.points[0].values, expected)


def test_weak_threaded_drops_locations_that_measured_nothing(tmp_path):
    for x in (1, 2):
        write_profile(tmp_path / f"a.x{x}" / "p.cubex", [[4.0 * x, 0.0], [1.0 * x, 0.0], [1.0 * x, 0.0]])
    e = cube.read(tmp_path, scaling="weak-threaded")
    assert e.get(region="main").points[1].values == (4.0,)


def test_detect_is_not_asked_for_a_directory_and_load_reads_it(experiment_dir):
    assert load(experiment_dir, "cube") == load(experiment_dir)
    with pytest.raises(DataFormatError, match="is a directory; the csv format is a file"):
        load(experiment_dir, "csv")


# ---------------------------------------------------------------------------------------------
# Errors

def test_directory_without_profiles_names_the_formats_read(tmp_path):
    (tmp_path / "a.x1").mkdir()
    with pytest.raises(DataFormatError, match="is a directory, and no folder in it holds a CUBE") as info:
        load(tmp_path)
    assert str(info.value).startswith(str(tmp_path)) and "CUBE4" in str(info.value)


def test_unknown_metric_lists_the_metrics_of_the_profile(experiment_dir):
    with pytest.raises(DataFormatError, match="no metric 'flops' in this profile") as info:
        load(experiment_dir, metric="flops")
    assert "it has: time, visits" in str(info.value)
    assert str(info.value).startswith(str(experiment_dir))


def test_a_corrupt_profile_is_an_error_naming_it(experiment_dir):
    bad = experiment_dir / "app.x8y7.r1" / "profile.cubex"
    bad.parent.mkdir()
    bad.write_bytes(b"not a tar file at all" * 40)
    with pytest.raises(DataFormatError, match="not a readable CUBE profile") as info:
        load(experiment_dir)
    assert str(info.value).startswith(str(bad))


def test_a_single_profile_file_asks_for_the_directory(experiment_dir):
    profile = next(experiment_dir.glob("*/profile.cubex"))
    with pytest.raises(UnknownFormatError, match="a single CUBE profile; give the directory"):
        load(profile)


def test_a_cube_file_is_not_detected_as_text(experiment_dir):
    profile = next(experiment_dir.glob("*/profile.cubex"))
    with pytest.raises(UnknownFormatError):
        detect(profile, "\x00binary")


def test_fit_command_reads_the_chosen_metric_of_cube_profiles(experiment_dir):
    from typer.testing import CliRunner

    from perfcompose.cli import app

    result = CliRunner().invoke(app, ["fit", str(experiment_dir), "--metric", "visits"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "visits" in result.output and "time" not in result.output.replace("repetitions", "")


def test_show_and_fit_take_extraps_scaling_option(tmp_path):
    from typer.testing import CliRunner

    from perfcompose.cli import app

    for x in (1, 2, 4):
        _run(tmp_path, f"a.x{x}", x, locations=2)
    runner = CliRunner()
    weak = runner.invoke(app, ["show", str(tmp_path)], env={"COLUMNS": "200"})
    strong = runner.invoke(app, ["show", str(tmp_path), "--scaling", "strong"], env={"COLUMNS": "200"})
    assert weak.exit_code == strong.exit_code == 0, weak.output + strong.output
    main = lambda out: out[out.index("main/time"):].splitlines()[4]  # noqa: E731 - the first point's row
    assert main(weak.output).split()[3] == "2" and main(strong.output).split()[3] == "1"
    bad = runner.invoke(app, ["fit", str(tmp_path), "--scaling", "sideways"])
    assert bad.exit_code == 2 and "sideways" in bad.output


def test_without_the_cube_extra_reading_names_the_extra_to_install(experiment_dir, monkeypatch):
    for name in [m for m in sys.modules if m == "pycubexr" or m.startswith("pycubexr.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pycubexr", None)  # what an environment without the extra imports
    with pytest.raises(MissingExtraError, match=r'pip install "perfcompose\[cube\]"'):
        load(experiment_dir)
    r = CliRunner().invoke(app, ["show", str(experiment_dir)])
    assert r.exit_code == 2 and "perfcompose[cube]" in r.output
