"""A compiled cost model read back as numbers and kept in the model cache (both
perfcompose.pamela.compile.numeric_form): the same values as the compiler, no SymPy, and
anything beyond numeric equations left to the compiler."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from pamela_models import EXAMPLES
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.pamela import compile_file
from perfcompose.pamela.compile import numeric_form as model_cache
from perfcompose.pamela.compile.numeric_form import read_numeric_form

runner = CliRunner()
POINTS = ({"P": 1.0, "N": 1.0, "C": 1.0, "R": 1.0}, {"P": 7.0, "N": 1e6, "C": 4.0, "R": 100.0},
          {"P": 1000.0, "N": 33.0, "C": 3.0, "R": 5.0})


@pytest.mark.parametrize("example", sorted(EXAMPLES.glob("*.pam")), ids=lambda p: p.stem)
def test_numeric_form_of_every_example_has_the_compilers_values(example):
    cm = compile_file(example)
    form = read_numeric_form(cm.text("main", everything=True))
    assert form is not None and form.parameters == cm.parameters
    for point in POINTS:
        values = {p: point[p] for p in cm.parameters}
        exact = cm.evaluate(values)
        for quantity in ("T", "phi", "omega"):
            assert form.quantity("main", quantity, values) == pytest.approx(getattr(exact, quantity), rel=1e-12)
        if form.reads("main", ("delta",)):
            loads = form.quantity("main", "delta", values)
            assert {k: v for k, v in enumerate(loads) if v} == pytest.approx(
                {k: v for k, v in exact.delta.items() if v}, rel=1e-12)


def test_equations_refer_to_each_other_in_any_order():
    form = read_numeric_form("numeric parameter N\nnumeric T_main = 2 * half + 1 % a comment\n"
                             "numeric half = N div 2 + N mod 2 + 2^-1\n")
    assert form is not None
    assert form.quantity("main", "T", {"N": 7}) == 2 * (3 + 1 + 0.5) + 1


@pytest.mark.parametrize("text", [
    "numeric parameter P\nprocess main = delay(P)",                       # a process
    'include "machine.pam"\nnumeric T_main = 1',                           # an include
    "numeric T_main = __import__('os').getcwd()",                          # not arithmetic
    "numeric T_main = (1).real",                                           # attribute
    "numeric parameter N\nnumeric v = [N, 1]\nnumeric T_main = 2 * v",    # a vector in arithmetic
    "numeric a = b\nnumeric b = a\nnumeric T_main = a",                    # a cycle
    "numeric T_main = undefined_name",
    "numeric parameter N\nnumeric parameter N\nnumeric T_main = N",        # a parameter twice
])
def test_anything_beyond_numeric_equations_is_left_to_the_compiler(text):
    form = read_numeric_form(text)
    assert form is None or not form.reads("main")


def test_a_sum_over_an_index_is_unread_but_the_rest_evaluates():
    cm = compile_file(EXAMPLES / "owner_computes.pam")
    form = read_numeric_form(cm.text("main", everything=True))
    assert form is not None and "delta_main" in form.unread
    assert form.reads("main") and not form.reads("main", ("T", "delta"))


def test_cache_entry_is_used_until_an_included_file_changes(tmp_path):
    (tmp_path / "costs.pam").write_text("numeric t_s = 0.1\n")
    model = tmp_path / "m.pam"
    model.write_text('include "costs.pam"\nnumeric parameter P\nresource s = fcfs(0, 1)\n'
                     "process main = par (p = 1, P) use(s, t_s)\n")
    assert model_cache.numeric_form(model) is None              # never compiled
    model_cache.compile_cached(model)
    form = model_cache.numeric_form(model)
    assert form is not None and form.quantity("main", "T", {"P": 10}) == pytest.approx(1.0)
    (tmp_path / "costs.pam").write_text("numeric t_s = 0.2\n")
    assert model_cache.numeric_form(model) is None              # stale: compiled again
    model_cache.compile_cached(model)
    assert model_cache.numeric_form(model).quantity("main", "T", {"P": 10}) == pytest.approx(2.0)
    assert model_cache.numeric_form(model, paper_phi=True) is None  # another rule, another entry


def test_cache_can_be_turned_off(tmp_path, monkeypatch):
    monkeypatch.setenv("PERFCOMPOSE_CACHE_DIR", "off")
    model = tmp_path / "m.pam"
    model.write_text("numeric parameter N\nprocess main = delay(N)\n")
    model_cache.compile_cached(model)
    assert model_cache.cache_folder() is None and model_cache.numeric_form(model) is None


def test_domain_error_in_a_numeric_form_is_a_located_error(tmp_path):
    path = tmp_path / "c.pam"
    path.write_text("numeric parameter N\nnumeric T_main = log(N)\n")
    r = runner.invoke(app, ["pamela", "eval", str(path), "N=0"])
    assert r.exit_code == 2 and "N=0" in r.output and "Traceback" not in r.output


def test_evaluating_a_compiled_grid_imports_no_sympy(tmp_path):
    compiled = tmp_path / "mrm.c.pam"
    compiled.write_text(compile_file(EXAMPLES / "mrm.pam").text("main"))
    code = ("import sys; from perfcompose.cli import main; sys.argv = ['perfcompose', 'pamela', 'eval', "
            f"{str(compiled)!r}, 'P=1:1000', 'N=1e6', '--json', '-']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('SYMPY' if 'sympy' in sys.modules else 'NO-SYMPY', file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120)
    assert done.stderr.strip().endswith("NO-SYMPY"), done.stderr
    out = json.loads(done.stdout)
    assert len(out["T_main"]) == 1000
    assert out["T_main"][99] == pytest.approx(max(10.1e6, 0.1e6 * 100))
