"""Models held as numbers: a sum of PMNF terms evaluates, prints and grows as the symbolic model
of the same terms does, and a composition adds its parts' members row by row."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from perfcompose.analyze.pmnf_sum import Columns, PMNFSum
from perfcompose.model import Model

TERMS = [(0.5, (("p", Fraction(1), Fraction(1)),)), (3.0, (("n", Fraction(1, 2), Fraction(0)),)),
         (1e-3, (("p", Fraction(2), Fraction(0)), ("n", Fraction(1), Fraction(2))))]


def test_a_sum_reads_as_the_symbolic_model_of_its_terms() -> None:
    numeric = PMNFSum.of_terms(("p", "n"), 7.0, TERMS)
    symbolic = Model.from_terms(7.0, [(c, {name: (i, j) for name, i, j in exps}) for c, exps in TERMS],
                                params=("p", "n"))
    X = np.array([[4.0, 100.0], [64.0, 1e4], [4096.0, 9000.0]])
    assert numeric.values(X) == pytest.approx(symbolic(p=X[:, 0], n=X[:, 1]), rel=1e-12)
    assert numeric.text(6) == symbolic.to_extrap(digits=6)
    for name in ("p", "n"):
        assert numeric.order(name) == tuple(symbolic.order(name))


def test_a_composition_merges_like_terms_and_adds_members_row_by_row() -> None:
    a = PMNFSum.of_terms(("p",), 1.0, [(2.0, (("p", 1, 0),))]).with_members(np.array([[1.0, 1.0], [1.0, 3.0]]))
    b = PMNFSum.of_terms(("p",), 0.0, [(1.0, (("p", 1, 0),)), (5.0, (("p", 0, 1),))])  # exact
    total = PMNFSum.total([a, b])
    assert total.keys == ((("p", 1, 0),), (("p", 0, 1),)) and total.coefficients.tolist() == [1.0, 3.0, 5.0]
    # each member of a plus b itself: 1 + p + (p + 5 log2 p), 1 + 3p + (p + 5 log2 p) at p = 8
    assert total.member_values([[8.0]])[:, 0].tolist() == [1 + 8 + 8 + 15, 1 + 24 + 8 + 15]
    assert PMNFSum.total([b, b]).members is None


def test_models_of_the_same_terms_share_one_read_only_design():
    X = np.array([[4.0, 8.0], [8.0, 16.0], [16.0, 64.0]])
    a = PMNFSum.of_terms(("p", "n"), 1.0, [(2.0, (("p", 1, 0),)), (0.5, (("n", 1, 1),))])
    b = PMNFSum.of_terms(("p", "n"), 3.0, [(1.0, (("p", 1, 0),)), (4.0, (("n", 1, 1),))])
    columns = Columns(("p", "n"), X)
    shared = columns.design(a.keys)
    assert columns.design(b.keys) is shared and not shared.flags.writeable
    np.testing.assert_allclose(shared @ b.coefficients, 3.0 + X[:, 0] + 4.0 * X[:, 1] * np.log2(X[:, 1]))
