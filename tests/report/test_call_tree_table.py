"""An analysis joined back to the call tree it came from: rows per call path in CSV, and columns
of a pandas frame indexed by the nodes of a Hatchet GraphFrame or a Thicket (and in its statsframe)."""
from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest
from caliper_json_files import solver_runs

from perfcompose.analyze import analyze
from perfcompose.data import load
from perfcompose.data.experiment import Experiment
from perfcompose.data.hatchet_runs import from_thicket
from perfcompose.report.call_tree_table import join, rows, write_csv

LULESH = Path(__file__).parent.parent / "data" / "hatchet" / "mpi_scaling_cali"


@pytest.fixture(scope="module")
def solver(tmp_path_factory):
    runs = solver_runs(tmp_path_factory.mktemp("runs"))
    return runs, analyze(load(runs, parameters={"p": "file"}), {"p": 1024})


def test_the_csv_holds_every_call_path_with_its_model_value_and_rank(solver, tmp_path: Path) -> None:
    _, analysis = solver
    written = {r["call path"]: r for r in csv.DictReader(write_csv(analysis, tmp_path / "t.csv").open())}
    expected = {r["call path"]: r for r in rows(analysis)}
    assert set(written) == set(expected) == {"main", "main->solve", "main->io", "main->io->write"}
    assert written["main->solve"]["rank"] == "1" and float(written["main->solve"]["value"]) == pytest.approx(512, 1e-3)
    assert all(written[p]["model"] == expected[p]["model"] and written[p]["unit"] == "" for p in written)


def test_a_graphframe_s_nodes_get_the_rows_of_their_call_paths(solver) -> None:
    hatchet = pytest.importorskip("hatchet")
    runs, analysis = solver
    frame = hatchet.GraphFrame.from_caliper(str(runs / "run.p4.json"), node_ordering=False)
    table = join(analysis, frame)
    by_name = {node.frame["name"]: row for node, row in table.iterrows()}
    assert set(by_name) == {"main", "solve", "io", "write"}
    assert by_name["solve"]["time_perfcompose-rank"] == 1
    assert by_name["write"]["time_perfcompose-value"] == pytest.approx(1.5, 1e-3)


def test_a_thicket_gets_the_analysis_in_its_statsframe(solver) -> None:
    thicket = pytest.importorskip("thicket")
    tk = thicket.Thicket.from_caliperreader([str(LULESH / f"{p}_cores.cali") for p in (27, 64, 125)],
                                            disable_tqdm=True)
    read = from_thicket(tk, units={"Avg time/rank": "s"}).select(metric="Avg time/rank")
    part = Experiment(read.parameters, tuple(s for s in read.series if "TimeIncrement" in s.region), read.source)
    analysis = analyze(part, {"p": 4096})
    join(analysis, tk)
    stats = tk.statsframe.dataframe
    models = stats["Avg time/rank_perfcompose-model"]
    analysed = {node.frame["name"] for node, model in models.items() if isinstance(model, str)}
    # the measured subtree and the callers above it, which the analysis adds as the sums of their callees
    assert analysed == {"main", "lulesh.cycle", "TimeIncrement", "MPI_Allreduce"}
    assert len(stats) == len(tk.graph) and models.isna().sum() == len(stats) - 4


def test_an_hpctoolkit_database_is_analysed_and_every_node_of_its_graphframe_gets_its_row(tmp_path: Path) -> None:
    hatchet = pytest.importorskip("hatchet")
    database = Path(__file__).parent.parent / "data" / "hatchet" / "hpctoolkit-cpi-database"
    for p in (2, 4, 8):  # the same run three times: a constant model per call path
        shutil.copytree(database, tmp_path / f"cpi.p{p}")
    analysis = analyze(load(tmp_path, parameters={"p": "file"}), {"p": 64})
    frame = hatchet.GraphFrame.from_hpctoolkit(str(database))
    table = join(analysis, frame)
    assert len(table) == len(frame.graph) and table["time_perfcompose-value"].notna().all()
    root = frame.graph.roots[0]
    # the program's inclusive time, derived from the exclusive times, is HPCToolkit's own, averaged over the ranks
    assert table.loc[root, "time_perfcompose-value"] == pytest.approx(frame.dataframe.loc[root, "time (inc)"].mean())
    assert table.loc[root, "time_perfcompose-unit"] == "us"
