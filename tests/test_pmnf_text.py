"""Extra-P's text form of PMNF models, printed without SymPy."""
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

from perfcompose.data import Experiment, save
from perfcompose.fit import PMNFFitter
from perfcompose.model import Model
from perfcompose.pmnf_text import extrap_text

F = Fraction


def test_terms_from_fewest_parameters_and_slowest_growth():
    terms = [(2.0, [("n", F(1), F(1)), ("p", F(1), F(0))]), (0.5, [("n", F(2), F(0))]),
             (1.5, [("p", F(1, 2), F(0))]), (0.25, [("p", F(1, 2), F(1))])]
    text = extrap_text(0.2, terms, ("p", "n"))
    assert text == ("0.2 + 1.5 * p^(1/2) + 0.25 * p^(1/2) * log2(p)^(1) + 0.5 * n^(2) "
                    "+ 2.0 * p^(1) * n^(1) * log2(n)^(1)")


def test_zero_constant_and_zero_terms_left_out_digits_and_implicit_one():
    assert extrap_text(0.0, [(3.0, [("x", F(1), F(0))]), (0.0, [("x", F(2), F(0))])], ("x",)) == "3.0 * x^(1)"
    assert extrap_text(0.0, [], ("x",)) == "0.0"
    assert extrap_text(1 / 3, [(1.0, [("x", F(-1), F(0))])], ("x",), digits=4) == "0.3333 + 1 * x^(-1)"
    assert extrap_text(0.0, [(1.0, [("x", F(1), F(1))])], ("x",), implicit_one=True) == "x^(1) * log2(x)^(1)"


def test_model_to_extrap_prints_through_the_same_order():
    m = Model.from_terms(0.2, [(0.1, {"x": (2, 0)}), (3.0, {"x": (F(1, 2), 0)})], params=("x",))
    assert m.to_extrap(digits=6) == "0.2 + 3 * x^(1/2) + 0.1 * x^(2)"
    assert Model.parse("x * log2(x)").to_extrap() == "x^(1) * log2(x)^(1)"


def _series(rng: np.random.Generator, k: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
    if k % 3 == 2:
        X = np.array([(p, n) for p in (4, 8, 16, 32, 64) for n in (10, 20, 40, 80, 160)], float)
        law = 1 + rng.uniform(0, 1) * X[:, 0] ** rng.choice([0.5, 1, 2]) * X[:, 1] ** rng.choice([0, 1]) \
            + rng.uniform(0, 1) * X[:, 1] ** rng.choice([0.5, 1])
        return X, np.outer(law, 1 + 0.03 * rng.standard_normal(5)), ["p", "n"]
    x = np.array([4, 8, 16, 32, 64.0])
    law = rng.uniform(1, 5) + rng.uniform(0, 1) * x ** rng.choice([0.5, 1, 1.5, 2]) * np.log2(x) ** (k % 2) \
        if k % 3 == 0 else rng.uniform(1, 5) + rng.uniform(1, 3) * 64 / x
    return x, np.outer(law, 1 + 0.05 * rng.standard_normal(5)), ["x"]


@pytest.mark.parametrize("digits", [None, 6])
def test_fit_text_reads_exactly_as_the_model_prints(digits):
    rng = np.random.default_rng(3)
    for k in range(90):
        X, values, params = _series(rng, k)
        result = PMNFFitter().fit_arrays(X, values, params)
        assert result.text(digits) == result.model.to_extrap(digits=digits)


def test_fit_command_does_not_load_sympy(tmp_path):
    path = tmp_path / "kernel.txt"
    points = [((x,), [3 + 0.2 * x * x * (1 + 0.01 * r) for r in range(-2, 3)]) for x in (4, 8, 16, 32, 64)]
    save(Experiment.single(["x"], points, region="kernel"), path, "extrap-text")
    code = ("import sys\nfrom perfcompose.cli import main\nsys.argv = ['perfcompose', 'fit', sys.argv[1]]\n"
            "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
            "print('sympy loaded' if 'sympy' in sys.modules else 'sympy not loaded')")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    assert "x^(2)" in out.stdout
    assert out.stdout.strip().endswith("sympy not loaded")
