"""The Modeling Engine (paper 004, section 3): data-parallel Python programs become PAMELA models
that include a separate machine model; annotations as '# pamela:' comments."""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from functools import cache

import pytest
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.pamela import CostModel, compile_file
from perfcompose.pamela.dataparallel.machine_model import MachineParameters, machine_text
from perfcompose.pamela.dataparallel.modeling_engine import generate, generate_text, pragmas
from perfcompose.pamela.dataparallel.vangemund import PROGRAMS
from perfcompose.pamela.language.syntax import PamelaError

runner = CliRunner()

#: a machine on which only NumPy calls cost (1 s each) and subscripts (1000 s each)
CALLS = MachineParameters(t_call=1, t_index=1000, t_ew=0, t_ews=0, t_ewm=0, t_ewc=0, t_copy=0, t_mxv=0, t_mxm=0,
                          t_sort=0, t_merge=0, t_msg=0, t_word=0, t_smsg=0, t_sword=0)
#: a machine on which only element-wise work costs (1 s per element on a vector, 2 along a column,
#: 4 on a block of parts of matrix rows, 8 on a block of whole rows), and messages
ELEMENTS = MachineParameters(t_call=0, t_index=0, t_ew=1, t_ews=2, t_ewm=4, t_ewc=8, t_copy=0, t_mxv=3, t_mxm=0,
                             t_sort=0, t_merge=0, t_msg=100, t_word=1,
                             t_smsg=100, t_sword=1)


def _model(tmp_path, program: str, machine: MachineParameters, name: str = "prog"):
    (tmp_path / "machine.pam").write_text(machine_text(machine))
    g = generate_text(program, tmp_path / f"{name}.py")
    path = tmp_path / f"{name}.pam"
    path.write_text(g.text)
    return compile_file(path), g


ADI_I = (PROGRAMS / "adi_i.py").read_text()


@pytest.fixture(scope="module")
def case_study(tmp_path_factory) -> Callable[[str], CostModel]:
    """A case study's model on the ELEMENTS machine, compiled once for the tests of this module
    (the Gauss eliminations take seconds each)."""
    folder = tmp_path_factory.mktemp("case_studies")
    (folder / "machine.pam").write_text(machine_text(ELEMENTS))

    @cache
    def compiled(name: str) -> CostModel:
        path = folder / f"{name}.pam"
        path.write_text(generate(PROGRAMS / f"{name}.py").text)
        return compile_file(path)

    return compiled


def test_adi_counts_two_numpy_calls_and_three_subscripts_per_column(tmp_path):
    cm, _ = _model(tmp_path, ADI_I, CALLS)
    for N, P in ((10, 1), (64, 2), (100, 4)):
        assert cm.evaluate({"N": N, "P": P}).T == pytest.approx((N - 1) * (2 + 3000))


def test_adi_column_operations_are_strided_and_split_over_the_rows(tmp_path):
    cm, _ = _model(tmp_path, ADI_I, ELEMENTS)
    # two strided operations (2 s per element) on ceil(N/P) rows, N - 1 columns, no communication
    assert cm.evaluate({"N": 64, "P": 2}).T == pytest.approx(63 * 2 * 2 * 32)
    assert cm.evaluate({"N": 63, "P": 2}).T == pytest.approx(62 * 2 * 2 * 32)


def test_matmul_broadcasts_a_row_per_step_and_multiplies_it_by_the_local_columns(tmp_path):
    cm, g = _model(tmp_path, (PROGRAMS / "matmul_bcast.py").read_text(), ELEMENTS)
    assert g.annotations == 0 and g.parameters == ("N", "P")
    N, P = 40, 2
    # per row: bcast of N words ((P - 1) messages of 100 + N), then N * N/P multiply-adds at 3 s
    assert cm.evaluate({"N": N, "P": P}).T == pytest.approx(N * ((P - 1) * (100 + N) + 3 * N * N / P))
    assert cm.evaluate({"N": N, "P": 1}).T == pytest.approx(N * 3 * N * N)


def test_gauss_block_leaves_processors_idle_that_cyclic_keeps_busy(case_study):
    block, cyclic = case_study("gauss_block"), case_study("gauss_cyclic")
    one = {"N": 32, "P": 1}
    assert block.evaluate(one).T == pytest.approx(cyclic.evaluate(one).T)
    two = {"N": 32, "P": 2}
    assert cyclic.evaluate(two).T < 0.8 * block.evaluate(two).T


def test_a_cyclic_broadcast_puts_a_message_latency_on_every_step_a_block_one_pipelines(tmp_path):
    # only messages cost: a ping-pong's message 100 + n, a stream's nothing
    latency = dataclasses.replace(CALLS, t_call=0, t_index=0, t_msg=100, t_word=1)
    block, g = _model(tmp_path, (PROGRAMS / "gauss_block.py").read_text(), latency, "block")
    cyclic, h = _model(tmp_path, (PROGRAMS / "gauss_cyclic.py").read_text(), latency, "cyclic")
    assert "bcastc(N, 1)" in h.text and "bcastc" not in g.text
    N = 32
    assert block.evaluate({"N": N, "P": 2}).T == pytest.approx(0)
    assert cyclic.evaluate({"N": N, "P": 2}).T == pytest.approx((N - 1) * (100 + N))
    assert cyclic.evaluate({"N": N, "P": 3}).T == pytest.approx((N - 1) * 2 * (100 + N))
    assert cyclic.evaluate({"N": N, "P": 1}).T == pytest.approx(0)


def test_every_case_study_generates_and_compiles(case_study):
    for program in sorted(PROGRAMS.glob("[!_]*.py")):  # _*.py: code the programs share
        T = case_study(program.stem).evaluate({"N": 256, "P": 2}).T
        assert T > 0, program.name
    assert generate(PROGRAMS / "psrs_improved.py").annotations == 2


def test_annotations_size_cost_cond_and_bounds(tmp_path):
    program = '''
import numpy as np
from perfcompose.pamela.dataparallel import block

def program(dp, N):
    X = dp.array((N,), block(0))
    Y = X[X > 0.5]  # pamela: size = N / (2 * P)
    Y += 1
    Z = slow(X)  # pamela: cost = 7 * N
    if X[0] > 0.5:  # pamela: cond = 0.25
        X += 1
    for i in something(N):  # pamela: lower = 1, upper = N
        X += 1
'''
    cm, g = _model(tmp_path, program, ELEMENTS)
    N, P = 40, 2
    mask, select, add = N / P, 0, N / (2 * P)  # the comparison, the copy (free here), the += on the half
    expected = mask + select + add + 7 * N + 0.25 * N / P + N * N / P
    assert cm.evaluate({"N": N, "P": P}).T == pytest.approx(expected)
    assert g.annotations == 5


@pytest.mark.parametrize("body, words", [
    ("    Y = X[X > 0.5]\n", "depends on the data"),
    ("    while True:\n        pass\n", "cannot model a 'While'"),
    ("    Z = mystery(X)\n", "does not know the cost of 'mystery"),
    ("    X += 1  # pamela: speed = 3\n", "not a pamela annotation"),
    ("    for i in items:\n        X += 1\n", "lower = FIRST"),
    ("    if X[0] > 1:\n        X += 1\n", "probability"),
    ("    dp.array((N,))\n", "assign it to a name"),
    ("    Y = dp.array((N, N), block(2))\n", "whole number from 0 to 1"),
    ("    if N > 3:  # pamela: cond = 1.5\n        X += 1\n", "a probability, from 0 to 1"),
    ("    X += 1  # pamela: cost = -1\n", "cost = -1 is below zero"),
    ("    X += 1  # pamela: cost = 1e999\n", "not finite"),
    ("    Y = dp.bcast(X)\n", "a call short of arguments"),
    ("    Y = dp.redistribute(X, k)\n", "not a whole number"),
])
def test_what_the_engine_cannot_read_is_a_located_error(body, words):
    program = "def program(dp, N):\n    X = dp.array((N,))\n" + body
    with pytest.raises(PamelaError) as err:
        generate_text(program, "prog.py")
    assert words in str(err.value) and "prog.py, line 3" in str(err.value)


def test_pragmas_are_read_from_comments_only():
    text = 'x = "# pamela: size = 3"\ny = 1  # pamela: size = N, cost = f(a, b)\n'
    assert pragmas(text) == {2: {"size": "N", "cost": "f(a, b)"}}


def test_generate_command_writes_the_model_and_says_when_the_machine_is_missing(tmp_path):
    program = tmp_path / "adi.py"
    program.write_text(ADI_I)
    r = runner.invoke(app, ["pamela", "generate", str(program)], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert (tmp_path / "adi.pam").read_text().startswith("% generated from adi.py")
    assert "does not exist yet" in r.output
    r = runner.invoke(app, ["pamela", "generate", str(tmp_path / "none.py")], env={"COLUMNS": "200"})
    assert r.exit_code == 2 and "cannot read" in r.output


def test_included_machine_errors_name_the_machine_file(tmp_path):
    (tmp_path / "machine.pam").write_text("numeric t = 1 +\n")
    (tmp_path / "m.pam").write_text('include "machine.pam"\nprocess main = delay(t)\n')
    with pytest.raises(PamelaError) as err:
        compile_file(tmp_path / "m.pam")
    assert "machine.pam, line" in str(err.value)
    (tmp_path / "machine.pam").write_text('include "m.pam"\n')
    with pytest.raises(PamelaError, match="cycle"):
        compile_file(tmp_path / "m.pam")


def test_a_cost_annotation_may_use_the_machine_models_parameters(tmp_path):
    program = '''
import numpy as np
from perfcompose.pamela.dataparallel import block

def program(dp, N):
    X = dp.array((N,), block(0))
    X = np.sort(X, kind="stable")  # pamela: cost = t_merge * (N / P) * log2(P + 1)
'''
    machine = dataclasses.replace(ELEMENTS, t_merge=3.0)
    cm, g = _model(tmp_path, program, machine)
    assert cm.evaluate({"N": 64, "P": 2}).T == pytest.approx(3.0 * 32 * math.log2(3))
    with pytest.raises(PamelaError, match="t_merge"):
        generate_text(program.replace("pamela: cost", "pamela: size"), tmp_path / "p.py")


def test_two_dimensional_blocks_and_columns_use_their_own_machine_processes(tmp_path):
    program = '''
import numpy as np
from perfcompose.pamela.dataparallel import block

def program(dp, N):
    A = dp.array((N, N), block(0))
    A[1:, 1:] -= np.outer(A[0, 1:], A[1, 1:])
    A[:, 1] -= A[:, 0]
'''
    cm, _ = _model(tmp_path, program, ELEMENTS)
    N = 10  # an outer product and a block update (4 s per element), a column update (2 s per element)
    assert cm.evaluate({"N": N, "P": 1}).T == pytest.approx(2 * 4 * (N - 1) ** 2 + 2 * N)


def test_a_block_of_whole_rows_costs_as_contiguous_work(tmp_path):
    program = '''
import numpy as np
from perfcompose.pamela.dataparallel import block

def program(dp, N):
    A = dp.array((N, N), block(0))
    A[1:, :] -= np.outer(A[0, 1:], A[1, :])
'''
    cm, _ = _model(tmp_path, program, ELEMENTS)
    N = 10  # an outer product and an update of N - 1 whole rows: 8 s per element
    assert cm.evaluate({"N": N, "P": 1}).T == pytest.approx(2 * 8 * (N - 1) * N)


def test_gauss_block_columns_whole_rows_only_where_the_pivot_is_left_of_the_block(tmp_path):
    from perfcompose.pamela.dataparallel import block, owned

    machine = dataclasses.replace(ELEMENTS, t_ew=0, t_ews=0, t_msg=0, t_word=0, t_smsg=0, t_sword=0)
    (tmp_path / "machine.pam").write_text(machine_text(machine))
    g = generate(PROGRAMS / "gauss_block.py")
    (tmp_path / "g.pam").write_text(g.text)
    cm = compile_file(tmp_path / "g.pam")
    N, P = 12, 2
    totals = [0.0] * P  # every processor's own steps (a broadcast waits for nobody but its root)
    for k in range(N - 1):  # columns right of k, two element-wise operations
        for p in range(P):
            cols = [j for j in owned(N, block(1), p, P) if j > k]
            whole = len(cols) == len(owned(N, block(1), p, P))
            totals[p] += 2 * (N - k - 1) * len(cols) * (machine.t_ewc if whole else machine.t_ewm)
    expected = max(totals)
    assert cm.evaluate({"N": N, "P": P}).T == pytest.approx(expected)


def test_a_function_of_another_module_is_read_as_if_written_in_place(tmp_path, monkeypatch):
    (tmp_path / "shared_steps.py").write_text('''
import numpy as np

def scaled(dp, X, k):
    Y = X * k  # pamela: size = 3
    return Y + 1
''')
    monkeypatch.syspath_prepend(str(tmp_path))
    program = '''
from shared_steps import scaled
from perfcompose.pamela.dataparallel import block

def program(dp, N):
    X = dp.array((N,), block(0))
    Z = scaled(dp, X, 2)
    Z += 1
'''
    cm, g = _model(tmp_path, program, ELEMENTS)
    N, P = 40, 2  # X * k on N / P elements; Y (of size 3, the helper's annotation) + 1; Z += 1
    assert cm.evaluate({"N": N, "P": P}).T == pytest.approx(N / P + 3 + 3)
    assert g.annotations == 1


def test_the_models_of_single_statements_add_up_to_the_programs_on_one_processor(tmp_path, case_study):
    (tmp_path / "machine.pam").write_text(machine_text(ELEMENTS))
    program = PROGRAMS / "gauss_cyclic.py"
    g = generate(program)
    assert [s[2] for s in g.statements] == ["col = dp.bcast(A, k)", "l = col[k + 1:] / col[k]",
                                            "A[k + 1:, s:] -= np.outer(l, A[k, s:])"]
    total = 0.0
    for i, (file, line, _) in enumerate(g.statements):
        (tmp_path / f"s{i}.pam").write_text(generate(program, only=(file, line)).text)
        total += compile_file(tmp_path / f"s{i}.pam").evaluate({"N": 9, "P": 1}).T
    assert total == pytest.approx(case_study("gauss_cyclic").evaluate({"N": 9, "P": 1}).T)
    assert total > 0
