"""The compiled extension and the plain-Python references give identical timelines on random
steps: the standard algorithm with random ties (the same seeded stream), ties by rank, both gap
origins, carried start times and gaps, and the worst case with its forced sends and the waiting
graph's components; and a simulation with the extension loads neither Numba nor SciPy nor SymPy."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from perfcompose.loggp.kernels import backend
from perfcompose.loggp.params import LogGP
from perfcompose.loggp.steps.program import CommStep, Program
from perfcompose.loggp.steps.simulate import simulate_step
from perfcompose.loggp.steps.worstcase import worst_case_step

needs_extension = pytest.mark.skipif(backend.compiled_module() is None,
                                     reason="the C extension perfcompose.loggp.kernels._cstep is not built "
                                            "(no C compiler at install time)")

FIELDS = ("send_start", "recv_start", "send_seq", "recv_seq", "finish", "next_send", "next_recv")


def random_step(seed: int) -> tuple[CommStep, LogGP, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """A random step (small sizes and integral times, so that ties between processors and between
    arrivals are frequent), parameters, start times and carried gaps."""
    rng = np.random.default_rng(seed)
    P = int(rng.integers(2, 40))
    M = int(rng.integers(0, 12 * P))
    src = rng.integers(0, P, M)
    dst = (src + rng.integers(1, P, M)) % P
    nbytes = rng.integers(0, 4, M).astype(np.float64)
    order = rng.permutation(M)
    step = CommStep.from_arrays(P, src, dst, nbytes, order)
    L, o, g, G = (float(v) for v in rng.integers(0, 4, 4))
    start = rng.integers(0, 3, P).astype(np.float64)
    ready = (start + rng.integers(0, 2, P), start + rng.integers(0, 2, P))
    return step, LogGP(L, o, g, G), start, ready


def run(which: str, fn, *args, monkeypatch, **kwargs):
    """``fn`` with the extension, or with it hidden (the references run)."""
    module = backend.compiled_module()
    for name in ("perfcompose.loggp.steps.simulate", "perfcompose.loggp.steps.worstcase"):
        monkeypatch.setattr(f"{name}.compiled_module", (lambda: None) if which == "reference" else (lambda: module))
    return fn(*args, **kwargs)


def assert_same(a, b) -> None:
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.forced == b.forced


@needs_extension
@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("ties", ["random", "rank"])
def test_standard_step_identical_in_both_implementations(seed, ties, monkeypatch):
    step, params, start, ready = random_step(seed)
    origin = "end" if seed % 2 else "start"
    kwargs = dict(start=start, ready=ready if seed % 3 else None, gap_origin=origin, ties=ties, seed=seed * 7919)
    slow = run("reference", simulate_step, step, params, monkeypatch=monkeypatch, **kwargs)
    compiled = run("compiled", simulate_step, step, params, monkeypatch=monkeypatch, **kwargs)
    assert_same(slow, compiled)


@needs_extension
@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("ties", ["random", "rank"])
def test_worst_case_identical_in_both_implementations(seed, ties, monkeypatch):
    step, params, start, ready = random_step(1000 + seed)
    kwargs = dict(start=start, ready=ready, gap_origin="end" if seed % 2 else "start", ties=ties, seed=seed)
    slow = run("reference", worst_case_step, step, params, monkeypatch=monkeypatch, **kwargs)
    compiled = run("compiled", worst_case_step, step, params, monkeypatch=monkeypatch, **kwargs)
    assert_same(slow, compiled)


@needs_extension
@pytest.mark.parametrize("P, M", [(300, 3000), (1000, 2500)])
def test_worst_case_with_many_forced_sends_identical_in_both_implementations(P, M, monkeypatch):
    """A random pattern: one big cycle broken by hundreds of forced sends, each refreshing the
    waiting graph's components (kept, searched and split by the extension; SciPy's in the reference)."""
    rng = np.random.default_rng(P)
    src = rng.integers(0, P, M)
    step = CommStep.from_arrays(P, src, (src + rng.integers(1, P, M)) % P, rng.integers(1, 100, M))
    params = LogGP(L=1.0, o=0.5, g=0.6, G=0.01)
    slow = run("reference", worst_case_step, step, params, monkeypatch=monkeypatch, seed=3)
    compiled = run("compiled", worst_case_step, step, params, monkeypatch=monkeypatch, seed=3)
    assert len(compiled.forced) > 50
    assert_same(slow, compiled)


@needs_extension
def test_random_ties_follow_the_seed_in_both_implementations(monkeypatch):
    """Many processors ready at once: the order they send in is the seeded random draw, the same
    draw in both, and another seed gives another order."""
    P = 64
    src = np.arange(P)
    step = CommStep.from_arrays(P, src, (src + 1) % P, np.ones(P))
    params = LogGP(L=1.0, o=1.0, g=1.0, G=0.0)
    orders = {}
    for seed in (1, 2):
        for which in ("reference", "compiled"):
            r = run(which, simulate_step, step, params, monkeypatch=monkeypatch, seed=seed)
            orders[seed, which] = tuple(np.argsort(r.send_seq))
    assert orders[1, "reference"] == orders[1, "compiled"]
    assert orders[2, "reference"] == orders[2, "compiled"]
    assert orders[1, "compiled"] != orders[2, "compiled"]


@needs_extension
def test_extension_refuses_an_array_of_the_wrong_type():
    module = backend.compiled_module()
    z = np.zeros(3)
    with pytest.raises(ValueError, match="dst"):
        module.standard(2, z, z, z, z, z, z, 1.0, 1.0, 1.0, 1.0, True, True, 0, z, z, z, z, z, z, z)


@needs_extension
def test_worst_case_loop_in_the_extension_passes_on_a_bad_choice():
    """The extension's worst case asks ``choose`` for each forced send: an index out of range
    is a ValueError, an exception of ``choose`` comes through unchanged."""
    module = backend.compiled_module()
    P = 4
    src = np.arange(P)
    step = CommStep.from_arrays(P, src, (src + 1) % P, np.ones(P))  # one cycle: a forced send
    ptr = np.arange(P + 1, dtype=np.int64)

    def call(choose):
        out = [np.zeros(P), np.zeros(P), np.zeros(P, np.int64), np.zeros(P, np.int64)] + [np.zeros(P)] * 3
        return module.worst_step(P, step.src, step.dst, step.nbytes, step.order, step.send_ptr, ptr, 1.0, 1.0, 1.0,
                                 0.0, True, choose, *out)

    forced, offsets, candidates = call(None)
    assert np.frombuffer(forced, np.int64).tolist() == [0]
    assert np.frombuffer(candidates, np.int32).tolist() == [0, 1, 2, 3] and len(offsets) == 16
    assert np.frombuffer(call(lambda n: n - 1)[0], np.int64).tolist() == [3]
    with pytest.raises(ValueError, match="choose"):
        call(lambda n: n)

    def broken(n):
        raise KeyError("no choice")
    with pytest.raises(KeyError, match="no choice"):
        call(broken)


def test_without_the_extension_the_reference_runs_and_says_so_once(monkeypatch, capsys):
    monkeypatch.setattr(backend, "compiled_module", lambda: None)
    assert backend.describe() == backend.SLOW and "slower" in backend.SLOW
    assert backend.describe(True) == "compiled extension (C)"
    backend.note_reference.cache_clear()
    backend.note_reference()
    backend.note_reference()
    err = capsys.readouterr().err
    assert err.count(backend.SLOW) == 1 and err.count("\n") == 1 and "gcc" in err


@needs_extension
@pytest.mark.parametrize("semantics", ["paper", "worst-case", "loggopsim"])
@pytest.mark.parametrize("form", ["npz", "json"])
def test_simulate_with_the_extension_loads_no_numba_scipy_or_sympy(tmp_path: Path, semantics, form):
    """A program of numbers (the compact form, or JSON without expressions) needs none of them."""
    if semantics == "loggopsim":
        pytest.importorskip("perfcompose.loggp.kernels._cgoal", reason="the LogGOPSim-semantics extension is not built")
    from perfcompose.loggp.steps.npzfile import write_program_npz
    from perfcompose.loggp.steps.program import program_to_json

    rng = np.random.default_rng(0)
    src = rng.integers(0, 16, 500)
    prog = Program(16, (CommStep.from_arrays(16, src, (src + rng.integers(1, 16, 500)) % 16, np.ones(500)),))
    flags = ["--worst-case"] if semantics == "worst-case" else ["--semantics", semantics]
    npz = tmp_path / f"p.{form}"
    if form == "npz":
        write_program_npz(prog, npz)
    else:
        npz.write_text(json.dumps(program_to_json(prog)))
    code = ("import sys; from perfcompose.cli import main\n"
            "try:\n"
            f"    sys.argv = ['perfcompose', 'loggp', 'simulate', {str(npz)!r}, '--L=1', '--o=1', '--g=1', "
            f"'--G=0', *{flags!r}]\n"
            "    main()\n"
            "except SystemExit as e:\n"
            "    assert not e.code, e.code\n"
            "import json; print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('numba', 'scipy', 'sympy', 'llvmlite'))))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "makespan" in out.stdout
    assert ("forced send" in out.stdout) == (semantics == "worst-case")  # the components were used
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
