"""Folders of runs read through Hatchet: LULESH's Caliper profiles at 27 to 343 ranks (Thicket's
test data), an HPCToolkit database and a Caliper JSON profile (Hatchet's), each run one point of
an experiment, and a Thicket read in Python giving the same experiment."""
from __future__ import annotations

import cProfile
import json
import shutil
from dataclasses import replace
from pathlib import Path

import caliperreader
import pytest

from perfcompose.data import load
from perfcompose.data.hatchet_runs import from_thicket
from perfcompose.errors import DataFormatError

DATA = Path(__file__).parent / "hatchet"
LULESH = DATA / "mpi_scaling_cali"


@pytest.fixture(scope="module")
def lulesh():
    return load(LULESH)


def test_each_run_is_a_point_at_its_mpi_world_size(lulesh) -> None:
    expected = {}
    for f in LULESH.glob("*.cali"):
        reader = caliperreader.CaliperReader()
        reader.read(str(f))
        record = next(r for r in reader.records if r.get("path") == ["main", "lulesh.cycle"])
        expected[float(reader.globals["mpi.world.size"])] = float(record["avg#inclusive#sum#time.duration"])
    cycle = lulesh.get("Avg time/rank", "main->lulesh.cycle")
    assert lulesh.parameters == ("p",) and sorted(expected) == [27.0, 64.0, 125.0, 216.0, 343.0]
    assert {p.coordinate[0]: p.values[0] for p in cycle.points} == pytest.approx(expected)
    assert cycle.unit == "s"
    assert set(lulesh.metrics) == {"Min time/rank", "Max time/rank", "Avg time/rank", "Total time"}


def test_a_parameter_read_from_the_file_names_gives_the_same_points(lulesh) -> None:
    assert load(LULESH, parameters={"p": "file"}).series == lulesh.series


def test_a_parameter_missing_from_the_metadata_names_the_run_and_the_keys_it_has() -> None:
    with pytest.raises(DataFormatError, match=r"(?s)125_cores.cali: no value of parameter 'n'.*mpi.world.size"):
        load(LULESH, parameters={"n": "problem.size"})


def test_a_parameter_that_does_not_vary_is_refused() -> None:
    with pytest.raises(DataFormatError, match="'n' .problem_size. has one value in all 5 run"):
        load(LULESH, parameters={"p": "mpi.world.size", "n": "problem_size"})


def test_an_hpctoolkit_database_keeps_its_ranks_as_repetitions_or_sums_them(tmp_path: Path) -> None:
    for p in (2, 4, 8):
        shutil.copytree(DATA / "hpctoolkit-cpi-database", tmp_path / f"cpi.p{p}")
    weak = load(tmp_path, parameters={"p": "file"})
    strong = load(tmp_path, parameters={"p": "file"}, scaling="strong")
    assert weak.parameters == ("p",) and weak.metrics == ("time",)
    main = weak.get("time", "<program root>->main")
    assert main.unit == "us" and [len(p.values) for p in main.points] == [4, 4, 4]
    assert max(v for s in weak.series for p in s.points for v in p.values) > 0
    for s in weak.series:
        summed = strong.get("time", s.region).points
        assert [p.values for p in summed] == [(pytest.approx(sum(p.values)),) for p in s.points]


def test_a_caliper_json_profile_gives_each_rank_its_exclusive_time(tmp_path: Path) -> None:
    source = DATA / "caliper-lulesh-json" / "lulesh-annotation-profile.json"
    for n in (10, 20, 30):
        shutil.copy(source, tmp_path / f"lulesh.n{n}.json")
    doc = json.loads(source.read_text())
    path, rank, exclusive = (doc["columns"].index(c) for c in ("path", "mpi.rank", "sum#time.duration"))
    by_rank = sorted(row[exclusive] for row in doc["data"] if row[path] == 0 and row[rank] is not None)
    experiment = load(tmp_path, parameters={"n": "file"})
    main = experiment.get("time", "main")
    assert [p.coordinate for p in main.points] == [(10.0,), (20.0,), (30.0,)]
    assert sorted(main.points[0].values) == pytest.approx(by_rank) and len(by_rank) == 8
    assert "main->LagrangeLeapFrog->LagrangeElements" in experiment.regions


def test_tau_profiles_give_each_rank_its_time_in_microseconds(tmp_path: Path) -> None:
    for p in (2, 4, 8):
        shutil.copytree(DATA / "tau-cpi-mpi", tmp_path / f"cpi.p{p}")
    experiment = load(tmp_path, parameters={"p": "file"})
    top = experiment.get("time", ".TAU application")
    # the exclusive time of the top region in each rank's file: the 5th field of its line
    own = sorted(float(line.split('"')[2].split()[2]) for f in (DATA / "tau-cpi-mpi").iterdir()
                 for line in f.read_text().splitlines() if line.startswith('".TAU application"'))
    assert top.unit == "us" and sorted(top.points[0].values) == pytest.approx(own) and len(own) == 4


def test_cprofile_runs_of_a_python_function_are_read_through_hatchet(tmp_path: Path) -> None:
    def work(n: int) -> int:
        return sum(range(n))

    for n in (1, 2, 4):
        profile = cProfile.Profile()
        profile.runcall(work, n * 100000)
        profile.dump_stats(tmp_path / f"run.n{n}.pstats")
    experiment = load(tmp_path, parameters={"n": "file"})
    assert experiment.parameters == ("n",) and experiment.series[0].unit == "s"
    assert any(region.endswith("work") for region in experiment.regions)


def test_a_thicket_read_in_python_gives_the_folder_s_experiment(lulesh) -> None:
    thicket = pytest.importorskip("thicket")
    runs = [str(LULESH / f"{p}_cores.cali") for p in (27, 64, 125)]
    tk = thicket.Thicket.from_caliperreader(runs, disable_tqdm=True)
    read = from_thicket(tk, units={m: "s" for m in lulesh.metrics})
    assert read.parameters == ("p",)
    assert set(read.series) == {replace(s, points=s.points[:3]) for s in lulesh.series}


def test_a_folder_without_profiles_is_refused_and_param_needs_a_folder_of_runs(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("nothing\n")
    with pytest.raises(DataFormatError, match="no folder in it holds a CUBE profile"):
        load(tmp_path)
    with pytest.raises(DataFormatError, match="no folder of runs that Hatchet reads"):
        load(tmp_path / "notes.txt", parameters={"p": "file"})
    with pytest.raises(DataFormatError, match="64_cores.cali: is one run; give the folder"):
        load(LULESH / "64_cores.cali")
