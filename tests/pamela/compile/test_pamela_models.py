"""Models whose closed forms are worked out by hand here; the compiler must reach them.

For each model: the simplified T_main equals the hand-derived closed form, evaluating the
unsimplified compilation gives the same numbers (the simplifier is sound), and the bound never
exceeds the simulated completion time (it is a lower bound), with the simulated per-resource
loads equal to delta.
"""
from __future__ import annotations

import math

import pytest
import sympy as sp
from pamela_models import EXAMPLES, MRM

from perfcompose.model import symbol
from perfcompose.pamela import compile_file, compile_text
from perfcompose.pamela.compile.symbolic_evaluation import evaluate, evaluate_loads, is_closed

P, N, K, S, C, R = (symbol(n) for n in "PNKSCR")
MACHINE = "numeric parameter P\nnumeric parameter N\nresource cpu(p) = fcfs(p, 1)\n"

# name -> (model text, hand-derived T_main, parameter points to check, bound == simulation?)
MODELS = {
    # MRM (paper 004): P clients each cycle N times through 10 think + 0.1 service on one server.
    # phi = N * (10 + 0.1); server load = P * N * 0.1  ->  T = max(10.1 N, 0.1 N P).
    "mrm": (MRM, sp.Max(sp.Rational(101, 10) * N, N * P / 10),
            [dict(P=5, N=20), dict(P=150, N=20)], False),
    # Nested triangular loops on one resource: sum_{i=1..N} sum_{j=1..i} 2 = 2 * N(N+1)/2 = N(N+1).
    "triangle": (MACHINE + "process main = seq (i = 1, N) seq (j = 1, i) use(cpu(0), 2)",
                 N * (N + 1), [dict(N=1), dict(N=9)], True),
    # Processor p does N half-unit jobs on its own cpu: phi = N/2, each cpu load N/2  ->  T = N/2.
    "block": (MACHINE + "process main = par (p = 0, P - 1) seq (k = 1, N) use(cpu(p), 0.5)",
              N / 2, [dict(P=3, N=4), dict(P=1, N=7)], True),
    # Several resources: each of P processors fetches x over one bus (N words of 4) and computes
    # N/P rows of N multiply-adds (1 each). phi = 4N + N^2/P; bus load 4 N P; cpu load N^2/P <= phi.
    "matvec": ("numeric parameter N\nnumeric parameter P\nresource bus = fcfs(0, 1)\n"
               "resource cpu(p) = fcfs(p, 1)\nprocess fetch = seq (k = 1, N) use(bus, 4)\n"
               "process rows(p) = seq (r = 1, N / P) seq (c = 1, N) use(cpu(p), 1)\n"
               "process main = par (p = 1, P) { fetch ; rows(p) }",
               sp.Max(4 * N * P, 4 * N + N ** 2 / P), [dict(N=8, P=4), dict(N=6, P=2)], False),
    # Multiplicity 4: N jobs of 3 on a 4-server resource. phi = 3, delta = 3N/4  ->  T = max(3, 3N/4).
    "multiplicity": ("numeric parameter N\nprocess main = par (i = 1, N) use(fcfs(0, 4), 3)",
                     sp.Max(3, 3 * N / 4), [dict(N=10), dict(N=2)], False),
    # Conditional: even i cost 3 on a cpu, odd i a delay of 1: 3 floor(N/2) + (N - floor(N/2)).
    "branch": (MACHINE + "process main = seq (i = 1, N) if (i mod 2 == 0) use(cpu(1), 3) else delay(1)",
               N + 2 * sp.floor(N / 2), [dict(N=7), dict(N=10)], True),
    # Reduction in a time: stage k takes sum_{i<=k} i = k(k+1)/2; sum over k = K(K+1)(K+2)/6.
    "reduction": ("numeric parameter K\nprocess main = seq (k = 1, K) delay(sum (i = 1, k) i)",
                  K * (K + 1) * (K + 2) / 6, [dict(K=1), dict(K=6)], True),
    # Owner computes (section 3): element i multiplied on cpu(i mod P); ceil(N/P) elements on the
    # busiest cpu, each 2  ->  T = 2 ceil(N/P) (and phi = 2 is dominated).
    "owner_computes": (MACHINE + "process mult(p) = use(cpu(p), 2)\n"
                       "process main = par (i = 1, N) mult(i mod P)",
                       2 * sp.ceiling(N / P), [dict(N=10, P=4), dict(N=12, P=3), dict(N=2, P=5)], True),
    # Own cpu then a shared one: phi = 1 + 1/4; cpu(0) load P/4, cpu(p) load 1  ->  max(5/4, P/4).
    "shared": (MACHINE + "process main = par (p = 1, P) { use(cpu(p), 1) ; use(cpu(0), 0.25) }",
               sp.Max(sp.Rational(5, 4), P / 4), [dict(P=2), dict(P=12)], False),
    # Fork-join stages: stage s runs s on every cpu at once; each stage is max(s, load s) = s,
    # so T = sum_{s=1..S} s = S(S+1)/2.
    "stages": ("numeric parameter S\nnumeric parameter P\nresource cpu(p) = fcfs(p, 1)\n"
               "process main = seq (s = 1, S) par (p = 1, P) use(cpu(p), s)",
               S * (S + 1) / 2, [dict(S=4, P=3), dict(S=1, P=1)], True),
    # Fixed vector of loads: cpu1 gets 2, cpu2 gets 3 + 4 = 7: delta = [0, 2, 7];
    # phi = max(2 + 3, 4) = 5, omega = 7  ->  T = 7.
    "vector": (MACHINE + "process main = { use(cpu(1), 2) ; use(cpu(2), 3) } || use(cpu(2), 4)",
               sp.Integer(7), [dict()], True),
    # Disk farm (examples/pamela/disk_farm.pam): C clients, R requests, 4 disks, every 4th request
    # also writes a log. Disk load C R 0.010 / 4; log load C floor(R/4) 0.002;
    # phi = R (0.005 + 0.010) + floor(R/4) 0.002.
    "disk_farm": ((EXAMPLES / "disk_farm.pam").read_text(),
                  sp.Max(C * R / 400, C * sp.floor(R / 4) / 500, 3 * R / 200 + sp.floor(R / 4) / 500),
                  [dict(C=3, R=8), dict(C=40, R=9)], False),
}


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_closed_form_matches_the_hand_derivation(name):
    text, expected, points, _ = MODELS[name]
    cm = compile_text(text)
    T = cm.costs("main").T
    assert is_closed(T), f"{name}: no closed form: {T}"
    for point in points:
        values = {k: float(v) for k, v in point.items()}
        want = float(expected.subs({symbol(k): v for k, v in point.items()}))
        assert _same(evaluate(T, values), want), (name, point, T)
    # structurally: the difference simplifies to zero wherever SymPy can tell
    if not T.has(sp.Max, sp.floor, sp.ceiling):
        assert sp.simplify(T - expected) == 0


@pytest.mark.parametrize("name", sorted(MODELS))
def test_simplified_equals_unsimplified_compilation(name):
    text, _, points, _ = MODELS[name]
    cm = compile_text(text)
    raw, simple = cm.raw("main"), cm.costs("main")
    for point in points:
        values = {k: float(v) for k, v in point.items()}
        for q in ("T", "phi", "omega"):
            assert _same(evaluate(getattr(raw, q), values), evaluate(getattr(simple, q), values)), (name, q, point)
        raw_loads = evaluate_loads(raw.delta, values)
        simple_loads = evaluate_loads(simple.delta, values)
        assert raw_loads.keys() == simple_loads.keys()
        assert all(_same(raw_loads[k], simple_loads[k]) for k in raw_loads)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_bound_never_exceeds_the_simulated_time(name):
    text, _, points, tight = MODELS[name]
    cm = compile_text(text)
    for point in points:
        values = {k: float(v) for k, v in point.items()}
        ev = cm.evaluate(values)
        sim = cm.simulate(values)
        assert ev.T <= sim.time * (1 + 1e-12), (name, point, ev.T, sim.time)
        if tight:  # no contention that the bound ignores: it is exact
            assert _same(ev.T, sim.time), (name, point, ev.T, sim.time)
        # the simulator's busy time per server equals the compiled delta, resource by resource
        assert sim.loads.keys() == ev.delta.keys()
        assert all(_same(sim.loads[k], ev.delta[k]) for k in ev.delta), (name, sim.loads, ev.delta)


def test_at_least_ten_hand_checked_models():
    assert len(MODELS) >= 10


def test_vectors_compile_as_in_section_2_1():
    # [1, 2, 3] * 4 is compiled to [4, 8, 12]; 10 * unitvec(3) to [0, 0, 0, 10]
    from perfcompose.pamela import normalise, pamela_text, parse

    nf = normalise(parse("numeric v = [1, 2, 3] * 4\nnumeric u = 10 * unitvec(3)\nnumeric m = max(v + u)"))
    assert pamela_text(nf.numerics["v"]) == "[4, 8, 12]"
    assert pamela_text(nf.numerics["u"]) == "[0, 0, 0, 10]"
    assert evaluate(nf.numerics["m"], {}) == 12.0


def test_max_reduction_of_a_monotone_body_is_its_last_value():
    # max (i = 1, N) (2 i + 1) = 2 N + 1; max over an invariant body disappears
    from perfcompose.pamela import normalise, parse, simplify

    nf = normalise(parse("numeric parameter N\nnumeric a = max (i = 1, N) (2 * i + 1)\n"
                         "numeric b = max (i = 1, N) { N * 3 }"))
    assert simplify(nf.numerics["a"]) == 2 * N + 1
    assert simplify(nf.numerics["b"]) == 3 * N


def test_what_has_no_closed_form_still_evaluates_exactly():
    # two cyclic mappings shifted by one: cpu r serves (i mod P == r) with 1 and ((i+1) mod P == r)
    # with 2. Brute force: loads per cpu, then the largest.
    cm = compile_text(MACHINE + "process main = par (i = 1, N) { use(cpu(i mod P), 1) ; "
                                "use(cpu((i + 1) mod P), 2) }")
    assert not is_closed(cm.costs("main").omega)
    for n, p in ((10, 4), (7, 3), (23, 5)):
        loads = [0.0] * p
        for i in range(1, n + 1):
            loads[i % p] += 1
            loads[(i + 1) % p] += 2
        assert cm.evaluate({"N": n, "P": p}).omega == max(loads)
        assert cm.model()(N=n, P=p) == max(3.0, max(loads))  # a Model all the same


def test_examples_compile_and_bound_their_simulation():
    for path in sorted(EXAMPLES.glob("*.pam")):
        cm = compile_file(path)
        values = {p: 8.0 for p in cm.parameters}
        assert cm.evaluate(values).T <= cm.simulate(values).time * (1 + 1e-12), path.name
