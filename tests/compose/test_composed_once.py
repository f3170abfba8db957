"""A prediction composes its program in one pass: a tree of the program's terms, each with its
model, its pipe choice and its workers, that the interval, the warnings, the bottleneck per point
and the term tree read."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from perfcompose import Model
from perfcompose.compose import Composer, parse_term
from perfcompose.compose.interval import MEMBERS_LANE, with_interval
from perfcompose.compose.kinds import KINDS, Kind, tpool_model
from perfcompose.compose.latency import latency
from perfcompose.compose.operators import Lane
from perfcompose.compose.oversubscription import workers
from perfcompose.compose.prediction import predict
from perfcompose.compose.terms import Component, Pipe, Position, Term
from perfcompose.ensemble import LinearEnsemble
from perfcompose.errors import ModelError

PARTS = {"nop": Model.parse("5422.97", unit="ns"), "inc": Model.parse("536.185*x", unit="ns"),
         "qsort": Model.parse("1034.17*x*log2(x)", unit="ns")}


def _counted(monkeypatch: Any) -> list[str]:
    calls: list[str] = []
    evaluate = Composer.evaluate

    def counting(self: Composer, term: Any, lanes: Any = ()) -> Any:
        calls.append(str(term))
        return evaluate(self, term, lanes)

    monkeypatch.setattr(Composer, "evaluate", counting)
    return calls


def test_predict_composes_the_program_once(monkeypatch: Any) -> None:
    weights = 536.185 * (1 + 0.05 * np.random.default_rng(1).standard_normal((50, 1)))
    parts = {**PARTS, "inc": PARTS["inc"].with_meta(ensemble=LinearEnsemble((Model.parse("x", unit=""),), weights))}
    composer = Composer(parts, pipe="asymptotic")
    calls = _counted(monkeypatch)
    result = predict(parse_term("pipe(tpool_4(qsort), inc, nop)"), composer, [2.0, 1024.0, 65536.0])
    assert calls == ["pipe(tpool_4(qsort), inc, nop)"]
    assert result.warnings and result.exact is not None        # the exact max, in the same pass
    assert result.points[0].low is not None                      # the interval, in the same pass
    assert result.points[-1].bottleneck == ("tpool_4(qsort)", "qsort")
    assert [n.label for n in result.tree.children] == ["tpool_4", "inc", "nop"]


def test_one_node_per_term_with_the_pipe_choice_and_workers() -> None:
    tree = Composer(PARTS, pipe="asymptotic").evaluate(parse_term("pipe(tpool_4(qsort), seq(inc, nop))"))
    assert [n.label for n in tree.walk()] == ["pipe", "tpool_4", "qsort", "seq", "inc", "nop"]
    assert tree.choice is not None and str(tree.choice.kept) == "tpool_4(qsort)"
    assert tree.workers == 5 and str(tree.work()) == str(PARTS["qsort"] + PARTS["inc"] + PARTS["nop"])


def test_a_following_lane_takes_the_stage_the_asymptotic_rule_kept() -> None:
    symbolic = Composer({n: Model.parse(n, unit="ns") for n in PARTS}, pipe="pointwise")
    lanes = (Lane("exact", symbolic), Lane("kept", symbolic, follow=True))
    tree = Composer(PARTS, pipe="asymptotic").evaluate(parse_term("pipe(qsort, nop)"), lanes)
    assert str(tree.lanes["exact"]) == "Max(nop, qsort)" and str(tree.lanes["kept"]) == "qsort"


def test_the_interval_is_folded_beside_the_model() -> None:
    tree = Composer(PARTS).evaluate(parse_term("qsort"))
    assert MEMBERS_LANE not in tree.lanes and with_interval(Composer(PARTS), "qsort").ensemble is None


@dataclass(frozen=True)
class Farm(Term):
    """A pattern the language does not have: two workers on one body."""

    body: Term
    pos: Position | None = None

    def children(self) -> tuple[Term, ...]:
        return (self.body,)

    def __str__(self) -> str:
        return f"farm({self.body})"


def test_a_new_pattern_is_one_entry_of_the_kinds(monkeypatch: Any) -> None:
    monkeypatch.setitem(KINDS, Farm, Kind(lambda t: "farm", lambda t: (t.body,),
                                          lambda c, t, parts: tpool_model(2, parts[0]),
                                          lambda t, n: None if n[0] is None else 2 * n[0],
                                          lambda model, parts: parts[0]))
    term = Pipe(Farm(Component("qsort")), Component("inc"))
    tree = Composer(PARTS).evaluate(term)
    assert tree.model(x=1024.0) == max(PARTS["qsort"](x=1024.0) / 2, PARTS["inc"](x=1024.0))
    assert [str(t) for t, _ in tree.bottleneck({"x": 1024.0})] == ["pipe(farm(qsort), inc)", "farm(qsort)", "qsort"]
    assert tree.workers == workers(term) == 3 and str(tree.work()) == str(PARTS["qsort"] + PARTS["inc"])
    with pytest.raises(ModelError, match="no latency operator for Farm"):  # its entry gives none
        latency(term, PARTS)
