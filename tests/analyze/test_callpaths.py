"""The call tree from call paths: callers before callees, unmeasured callers added, several
outermost call paths under a program root, a flat profile left flat, and call paths on a device
or another thread beside their callers."""
from __future__ import annotations

from perfcompose.analyze.callpaths import PROGRAM, beside_callers, call_tree, caller, region


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


def test_several_outermost_call_paths_of_a_call_tree_hang_under_the_program() -> None:
    tree = call_tree(["main->solve", "init", "finalize"])
    assert tree.root == PROGRAM and tree.roots == (PROGRAM,)
    assert tree.callees[PROGRAM] == ("main", "init", "finalize")
    assert tree.postorder()[-1] == PROGRAM and not tree.flat


def test_regions_without_call_paths_stay_flat() -> None:
    tree = call_tree(["sort", "merge", "io"])
    assert tree.flat and tree.roots == ("sort", "merge", "io")
    assert PROGRAM not in tree.callees and PROGRAM not in tree.postorder()


def test_a_gpu_kernel_and_a_helper_thread_run_beside_their_callers() -> None:
    tags = {"main->launch": {"gpu": True}, "main->launch->copy": {"gpu": True}, "helper": {"thread": 1},
            "helper->poll": {}, "main->io": {"thread": "main"}}
    beside = beside_callers(tags)
    assert beside == {"main->launch", "helper"}
    tree = call_tree(["main->work", "main->launch->copy", "main->io", "helper->poll"], beside)
    # the helper thread is a tree of its own, not summed into the program's
    assert tree.roots == ("main", "helper")
    assert tree.callees["main"] == ("main->work", "main->launch", "main->io")
    assert tree.summed("main") == ("main->work", "main->io")
    assert tree.summed("main->launch") == ("main->launch->copy",)
