"""The call tree from call paths: callers before callees, unmeasured callers added, a flat
profile under a program root."""
from __future__ import annotations

from perfcompose.analyze.callpaths import PROGRAM, call_tree, caller, region


def test_a_call_path_names_its_caller_and_region() -> None:
    assert caller("main->solve->MPI_Allreduce") == "main->solve"
    assert caller("main") is None
    assert region("main->solve->MPI_Allreduce") == "MPI_Allreduce"


def test_one_outermost_region_is_the_root_and_callees_come_before_callers() -> None:
    tree = call_tree(["main", "main->solve", "main->solve->comm", "main->init"])
    assert tree.root == "main"
    assert tree.callees["main"] == ("main->solve", "main->init")
    order = tree.postorder()
    assert sorted(order) == sorted(["main", "main->solve", "main->solve->comm", "main->init"])
    for path in order:
        for callee in tree.callees.get(path, ()):
            assert order.index(callee) < order.index(path)


def test_an_unmeasured_caller_is_added_and_known_as_unmeasured() -> None:
    tree = call_tree(["main", "main->solve->comm"])
    assert tree.callees["main"] == ("main->solve",)
    assert tree.callees["main->solve"] == ("main->solve->comm",)
    assert "main->solve" not in tree.measured and "main->solve->comm" in tree.measured


def test_regions_without_call_paths_hang_under_the_program() -> None:
    tree = call_tree(["sort", "merge", "io"])
    assert tree.root == PROGRAM
    assert tree.callees[PROGRAM] == ("sort", "merge", "io")
    assert tree.postorder()[-1] == PROGRAM
