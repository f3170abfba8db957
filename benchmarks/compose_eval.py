"""Evaluating a composed design at many points: mixed sources against hand-written NumPy.

A design of four components from four kinds of source (a PMNF model fitted from measurements,
a PAMELA cost model bound to the design's x, an expression, and a saved model record) is
composed into one Model and evaluated at a million sizes x; the anchor is the same formula
written by hand in NumPy, so the ratio is the price of composing instead of coding. A second
table shows that a design with a LogGP component (known only by simulation) costs one
simulation per distinct point drawn, cached for every later evaluation.

    python benchmarks/compose_eval.py [--points 1000000]
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from perfcompose import Model
from perfcompose.compose import Component, Composer
from perfcompose.compose.components import from_table, parse_component

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
PROGRAM = "pipe(tpool_4(qsort), seq(solve, inc), nop)"


def best(func, repeat: int = 7) -> float:
    """The shortest of ``repeat`` timings of ``func()``, in seconds."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        func()
        times.append(time.perf_counter() - t0)
    return min(times)


def components(tmp: Path) -> dict[str, Model]:
    _, qsort = parse_component(f"qsort={EXAMPLES / 'tasks.csv'}:qsort")
    _, inc = parse_component(f"inc={EXAMPLES / 'tasks.csv'}:inc")
    solve = from_table("solve", {"pamela": str(EXAMPLES / "pamela" / "bus.pam"), "bind": {"N": "x", "P": 4},
                                 "unit": "us"}, base=ROOT)
    saved = tmp / "nop.json"
    saved.write_text(Model.parse("5422.97", unit="ns").to_json_text())
    _, nop = parse_component(f"nop={saved}")
    return {"qsort": qsort, "inc": inc, "solve": solve, "nop": nop}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=1_000_000)
    args = ap.parse_args()
    console = Console(width=140)
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        comps = components(Path(tmp))
    composer = Composer(comps)
    t0 = time.perf_counter()
    model = composer(PROGRAM)
    compose_s = time.perf_counter() - t0
    x = np.geomspace(1024.0, 2.0 ** 24, args.points)

    # the anchor: the same composed formula, coefficients taken from the parts, written in NumPy
    (cq, tq), (ci, ti) = comps["qsort"].terms(), comps["inc"].terms()
    q_c, q_t = cq, tq[0].coefficient
    i_c, i_t = ci, ti[0].coefficient
    nop = float(comps["nop"](x=1.0)) if comps["nop"].params else float(comps["nop"].expr)

    def by_hand() -> np.ndarray:
        lg = np.log2(x)
        qsort = (q_c + q_t * x * lg) / 4
        solve = np.maximum(0.006 * x, 0.086 * x / 4) * 1e3
        return np.maximum(np.maximum(qsort, solve + i_c + i_t * x), nop)

    assert comps["qsort"].order("x") == (1, 1) and comps["inc"].order("x") == (1, 0)
    t0 = time.perf_counter()
    by_hand()
    hand_first_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    first = model(x=x)
    first_s = time.perf_counter() - t0
    warm_s = best(lambda: model(x=x))
    hand_s = best(by_hand)
    other = composer("pipe(tpool_2(qsort), seq(solve, inc), nop)")
    t0 = time.perf_counter()
    other(x=x)
    second_s = time.perf_counter() - t0
    agree = float(np.max(np.abs(first - by_hand()) / by_hand()))

    t = Table(title=f"{PROGRAM} at {args.points:,} sizes x (fitted, PAMELA, expression and saved-model sources)",
              title_justify="left")
    for col in ("what", "time \\[ms]", "vs hand-written NumPy"):
        t.add_column(col, justify="right" if col != "what" else "left")
    t.add_row("compose the model (once)", f"{compose_s * 1e3:.1f}", "")
    t.add_row("first evaluation in this process (loads SymPy's code printer, compiles)", f"{first_s * 1e3:.1f}",
              f"{first_s / hand_first_s:.2f}x")
    t.add_row("first evaluation of another design (compiles it)", f"{second_s * 1e3:.1f}",
              f"{second_s / hand_s:.2f}x")
    t.add_row("evaluation", f"{warm_s * 1e3:.1f}", f"{warm_s / hand_s:.2f}x")
    t.add_row("anchor: the same formula in NumPy, first call", f"{hand_first_s * 1e3:.1f}", "1.00x")
    t.add_row("anchor: the same formula in NumPy", f"{hand_s * 1e3:.1f}", "1.00x")
    console.print(f"model: {model}  [{model.unit}]")
    console.print(t)
    console.print(f"largest relative difference from the hand-written formula: {agree:.1e}")

    from perfcompose.loggp.params import read_params
    from perfcompose.loggp.source import LogGPSource
    from perfcompose.loggp.steps.template import read_template

    source = LogGPSource(read_template(EXAMPLES / "loggp" / "exchange.json"),
                         read_params(EXAMPLES / "loggp" / "params_local.json"))
    design = Composer({**comps, "halo": source.model("halo")})
    piped = design("pipe(tpool_4(qsort), halo)")
    xs = np.geomspace(1024.0, 2.0 ** 20, 50)
    rows = []
    for label, values in (("50-point plot: the design", xs), ("the same 50 points again", xs),
                          ("the halo stage alone at those points", xs),
                          ("25 of them, each twice, in one array", np.repeat(xs[::2], 2))):
        before = source.simulations
        t0 = time.perf_counter()
        (design.leaf(Component("halo")) if "alone" in label else piped)(x=values)
        rows.append((label, len(values), source.simulations - before, time.perf_counter() - t0))
    t2 = Table(title="a LogGP component is simulated once per distinct point", title_justify="left")
    for col in ("evaluation", "points", "simulations", "time \\[ms]"):
        t2.add_column(col, justify="right" if col != "evaluation" else "left")
    for label, n, sims, secs in rows:
        t2.add_row(label, str(n), str(sims), f"{secs * 1e3:.1f}")
    console.print(t2)


if __name__ == "__main__":
    main()
