"""Predictions for code that is not perfcompose's own: programs of everyday library stages.

Two sets of programs, each run for real in the validation study's interleaved rounds and
predicted twice: by the papers' operators over the parts timed alone on fresh input (the anchor,
measured in the same run) and by the calibrated operators over the parts measured in context
with their co-run slowdowns.

* Without ``--seeds``: eight fixed programs of seven stages (``examples/stages/library_stages.py``:
  NumPy filtering, sorting, FFT and rounding, zlib, BLAKE2, json).
* With ``--seeds``: for each seed, ``--programs`` programs drawn at random from the 56 stages of
  15 kinds of ``examples/stages/stage_pool.py`` (compression, hashing, BLAS on its own threads,
  FFT, sorting, regular expressions, serialisation, pure Python under the GIL, SQLite, decimal
  arithmetic, filters, statistics, text, spatial search): ``seq``, ``pipe``, ``tpool_2`` and
  nestings of them, 2-4 stages, at most two workers. Each seed draws other programs; a seed
  never used while the method was developed is a held-out test of it.

Per program the table gives both errors (median and max over the sizes), how many measured
points lie inside the 90 % interval and the interval's median width relative to the
prediction; per seed the median and 90th-percentile program, coverage and width; over the
seeds the median and 90th-percentile program, coverage and median width of every trusted
program together, and the per-seed spread.

    python benchmarks/user_code.py [--seeds 101:105] [--x 1024:16384] [--rounds 5] [--load 1]
                                   [--repeat] [--json out.json] [--restart]

``--load N`` runs N CPU-bound processes beside the study (a busy loop each). ``--repeat`` runs
every study a second time, measured anew, and sets the predictor's error beside how closely the
measurement repeats itself: per program the median over the sizes of |second / first - 1| of the
measured times and of the predictions, and the first prediction against the second measurement.
Before and after the studies the machine's steadiness is probed
(:mod:`perfcompose.bench.steadiness`: a fixed piece of work timed back to back for 3 s); where
the two probes' fastest paces differ by more than 1.15x, the host changed the machine's speed
while the studies ran, and the output says so.
Measurements are checkpointed under ``.perfcompose/`` (the repeats under ``.perfcompose/repeat``):
an interrupted run resumes (``--restart`` measures anew). The figures are about this machine: its
core count, memory bandwidth and caches set how much co-running stages slow each other down.
"""
from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import platform
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples" / "stages"))

import library_stages  # noqa: E402
import stage_pool  # noqa: E402

from perfcompose.bench.runner import parse_values  # noqa: E402
from perfcompose.bench.steadiness import SLOW, probe  # noqa: E402
from perfcompose.commands.validation import ValidateCommand  # noqa: E402
from perfcompose.compose.parser import parse_term  # noqa: E402
from perfcompose.validate.modular import Study, study  # noqa: E402

FIXED_STAGES = ("smooth", "sort", "spectrum", "quantize", "pack", "digest", "encode")
FIXED_PROGRAMS = (
    "seq(smooth, quantize, pack)",
    "seq(spectrum, pack)",
    "pipe(smooth, pack)",
    "pipe(sort, digest)",
    "tpool_2(encode)",
    "tpool_2(sort)",
    "tpool_2(seq(quantize, pack))",
    "pipe(seq(spectrum, quantize), pack)",
)
#: program shapes of at most two workers, by their number of stages (``{}`` are stages)
SHAPES = (
    "seq({}, {})", "seq({}, {}, {})", "seq({}, {}, {}, {})",
    "pipe({}, {})", "pipe(seq({}, {}), {})", "pipe({}, seq({}, {}))", "pipe(seq({}, {}), seq({}, {}))",
    "tpool_2(seq({}, {}))", "tpool_2(seq({}, {}, {}))", "seq(tpool_2({}), {})",
)


def draw_programs(seed: int, count: int, stages: Sequence[str] = tuple(stage_pool.STAGES)) -> list[str]:
    """``count`` distinct programs drawn with ``seed``: a shape of :data:`SHAPES`, its stages drawn
    from ``stages`` without repeating one within a program."""
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < count:
        shape = rng.choice(SHAPES)
        program = shape.format(*rng.sample(list(stages), shape.count("{}")))
        if program not in out:
            out.append(program)
    return out


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _busy() -> None:
    while True:
        math.sqrt(12345.678)


def _rows(result: Study) -> list[dict[str, Any]]:
    rows = []
    for c in result.comparisons:
        predicted = np.asarray(c.calibrated(x=np.array(c.x)), dtype=float)
        width = float(np.median((np.array(c.high) - np.array(c.low)) / predicted)) if c.low else None
        rows.append({"program": c.configuration, "calibrated_median": c.error_calibrated,
                     "calibrated_max": max(c.errors_calibrated), "papers_median": c.error_paper,
                     "papers_max": max(c.errors_paper), "inside": sum(c.inside), "points": len(c.inside),
                     "width": width, "disturbed": c.disturbed, "trusted": c.trusted, "warning": c.warning,
                     "x": list(c.x), "measured_ns": [v * 1e9 for v in c.measured],
                     "predicted_ns": predicted.tolist(), "papers_ns": [float(v) for v in c.modular(x=np.array(c.x))],
                     "low_ns": list(c.low), "high_ns": list(c.high)})
    return rows


def _print_study(result: Study, rows: list[dict[str, Any]]) -> None:
    print(f"{'program':46s} {'calibrated med / max':>21s} {'papers ops med / max':>21s} {'inside':>7s} "
          f"{'width':>6s}")
    for r in rows:
        flag = (" !" if r["disturbed"] else "") + ("" if r["trusted"] else " ?")
        width = "-" if r["width"] is None else f"{r['width']:.2f}"
        print(f"{r['program'] + flag:46s} {100 * r['calibrated_median']:9.1f} / {100 * r['calibrated_max']:6.1f} % "
              f"{100 * r['papers_median']:9.1f} / {100 * r['papers_max']:6.1f} % "
              f"{r['inside']:3d}/{r['points']:<3d} {width:>6s}")
    for e in result.context_effects:
        print(f"  in context: {e.part} takes {e.ratio:.2f}x its time on fresh input (x = {e.x:g})")
    for s in (s for s in result.slowdowns if s.notable):
        note = (" -> runs one at a time (a lock such as the GIL)" if s.locked
                else " -> brings threads of its own" if s.threaded and s.a == s.b else "")
        print(f"  co-run: {s.a} beside {s.b}: {s.median:.2f}x ({s.low:.2f}-{s.high:.2f}){note}")
    print(f"  {result.retaken} runs taken again for other work, {result.disturbed} kept disturbed")


def summary(rows: list[dict[str, Any]], result: Study) -> dict[str, Any]:
    """A study's figures: median and 90th-percentile program error (calibrated and the papers'
    operators), coverage and median width of the intervals."""
    shown = [r for r in rows if r["trusted"]] or rows
    cal = [r["calibrated_median"] for r in shown]
    pap = [r["papers_median"] for r in shown]
    every = [r["calibrated_median"] for r in rows]
    inside = sum(r["inside"] for r in shown)
    widths = [w for r in shown for w in np.subtract(r["high_ns"], r["low_ns"]) / np.array(r["predicted_ns"])]
    return {"median": float(np.median(cal)), "p90": float(np.quantile(cal, 0.9)), "worst": float(max(cal)),
            "papers_median": float(np.median(pap)), "papers_p90": float(np.quantile(pap, 0.9)),
            "coverage": inside / max(sum(r["points"] for r in shown), 1),
            "width": float(np.median(widths)) if widths else None,
            "untrusted": len(rows) - len([r for r in rows if r["trusted"]]),
            "median_all": float(np.median(every)), "p90_all": float(np.quantile(every, 0.9)),
            "coverage_all": result.coverage, "retaken": result.retaken, "disturbed": result.disturbed}


def run_one(programs: Sequence[str], functions: dict[str, Callable[[Any], Any]], make: Callable[[float], Any],
            args: argparse.Namespace, label: str, checkpoints: Path = ROOT / ".perfcompose") -> dict[str, Any]:
    t0 = time.perf_counter()
    last = [0.0]

    def progress(step: str, done: int, total: int) -> None:
        now = time.perf_counter()
        if now - last[0] > 15 or done == total:
            last[0] = now
            print(f"  {label} {step}: {done}/{total}", file=sys.stderr, flush=True)

    result = study(programs, parse_values(args.x), rounds=args.rounds, count=ValidateCommand.count,
                   functions=functions, make=make, checkpoints=checkpoints, restart=args.restart,
                   progress=progress)
    rows = _rows(result)
    print(f"\n{label}: {time.perf_counter() - t0:.0f} s, load average {os.getloadavg()[0]:.2f}")
    _print_study(result, rows)
    return {"label": label, "seconds": time.perf_counter() - t0, "programs": rows, **summary(rows, result),
            "slowdowns": [s.to_json() for s in result.slowdowns],
            "context_effects": [e.to_json() for e in result.context_effects]}


def repeatability(first: dict[str, Any], second: dict[str, Any]) -> dict[str, float]:
    """How closely a study repeats itself: over the programs of both, the median program's median
    over the sizes of |second / first - 1| of the measured times (``measured``) and of the
    predictions (``predicted``), the first prediction against the second measurement (``across``),
    and each study's own median program error (``error_first``, ``error_second``); every program
    counts, those a study calls untrusted too."""
    again = {r["program"]: r for r in second["programs"]}
    pairs = [(r, again[r["program"]]) for r in first["programs"] if r["program"] in again]

    def change(reference: Callable[[tuple], list[float]], value: Callable[[tuple], list[float]]) -> float:
        """The median program's median over the sizes of |value / reference - 1|."""
        per = [np.median(np.abs(np.array(value(p)) / np.array(reference(p)) - 1)) for p in pairs]
        return float(np.median(per)) if per else math.nan

    return {"programs": len(pairs),
            "measured": change(lambda p: p[0]["measured_ns"], lambda p: p[1]["measured_ns"]),
            "predicted": change(lambda p: p[0]["predicted_ns"], lambda p: p[1]["predicted_ns"]),
            "across": change(lambda p: p[0]["predicted_ns"], lambda p: p[1]["measured_ns"]),
            "error_first": change(lambda p: p[0]["predicted_ns"], lambda p: p[0]["measured_ns"]),
            "error_second": change(lambda p: p[1]["predicted_ns"], lambda p: p[1]["measured_ns"])}


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:5.1f} %"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default=None, help="draw programs from the stage pool with these seeds: "
                        "A:B (every seed from A to B) or A,B,C")
    parser.add_argument("--programs", type=int, default=8, help="programs drawn per seed")
    parser.add_argument("--x", default=None, help="sizes (samples per element): LO:HI powers of two "
                        "(default 4096:65536 for the fixed programs, 1024:16384 for drawn ones)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--load", type=int, default=0, help="CPU-bound processes to run beside the study")
    parser.add_argument("--repeat", action="store_true", help="run every study twice, measured anew, and "
                        "report how closely the measurements and predictions repeat")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    parser.add_argument("--restart", action="store_true", help="measure anew instead of resuming")
    args = parser.parse_args()
    load0 = os.getloadavg()[0]
    steady = [probe(3.0)]
    print(f"steadiness before: {steady[0].describe()}", flush=True)
    busy = [multiprocessing.Process(target=_busy, daemon=True) for _ in range(args.load)]
    for p in busy:
        p.start()
    studies = []

    def measure(programs: Sequence[str], functions: dict[str, Callable[[Any], Any]], make: Callable[[float], Any],
                label: str, **extra: Any) -> None:
        studies.append({**extra, **run_one(programs, functions, make, args, label)})
        if args.repeat:
            again = run_one(programs, functions, make, args, f"{label} again", ROOT / ".perfcompose" / "repeat")
            studies[-1]["repeat"] = {**again, "repeatability": repeatability(studies[-1], again)}

    try:
        if args.seeds is None:
            args.x = args.x or "4096:65536"
            measure(FIXED_PROGRAMS, {name: getattr(library_stages, name) for name in FIXED_STAGES},
                    library_stages.signal, "fixed programs")
        else:
            args.x = args.x or "1024:16384"
            if ":" in args.seeds:
                lo, hi = (int(v) for v in args.seeds.split(":"))
                seeds = list(range(lo, hi + 1))
            else:
                seeds = [int(v) for v in args.seeds.split(",")]
            for seed in seeds:
                programs = draw_programs(seed, args.programs)
                functions = {c: stage_pool.STAGES[c] for p in programs
                             for c in parse_term(p, components=stage_pool.STAGES).components()}
                measure(programs, functions, stage_pool.signal, f"seed {seed}", seed=seed)
    finally:
        for p in busy:
            p.terminate()
    steady.append(probe(3.0))
    print(f"steadiness after: {steady[1].describe()}")
    moved = steady[0].moved(steady[1])
    if moved > SLOW:
        print(f"warning: the machine's fastest pace moved {moved:.2f}x between the two probes: the studies ran "
              "while the host changed this machine's speed, and their figures are about that hour; measure again")
    print(f"\n{_cpu()}, {os.cpu_count()} cores; load average {load0:.2f} before, {os.getloadavg()[0]:.2f} after; "
          f"{args.load} CPU-bound processes beside; x = {args.x}; {args.rounds} rounds")
    print("per study, over the programs predicted (not those the output calls untrusted, '?'; 'all' counts "
          "them too)")
    print(f"{'study':16s} {'median':>8s} {'p90':>8s} {'worst':>8s} {'papers':>8s} {'coverage':>9s} {'width':>6s} "
          f"{'untrusted':>9s} {'median all':>10s} {'p90 all':>8s}")
    for s in studies:
        width = "-" if s["width"] is None else f"{s['width']:.2f}"
        print(f"{s['label']:16s} {_pct(s['median']):>8s} {_pct(s['p90']):>8s} {_pct(s['worst']):>8s} "
              f"{_pct(s['papers_median']):>8s} {_pct(s['coverage']):>9s} {width:>6s} {s['untrusted']:>9d} "
              f"{_pct(s['median_all']):>10s} {_pct(s['p90_all']):>8s}")
    if len(studies) > 1:
        trusted = [r for s in studies for r in s["programs"] if r["trusted"]]
        every = [r["calibrated_median"] for r in trusted]
        points = sum(r["points"] for r in trusted if r["low_ns"])
        inside = sum(r["inside"] for r in trusted if r["low_ns"]) / max(points, 1)
        widths = [w for r in trusted if r["low_ns"]
                  for w in np.subtract(r["high_ns"], r["low_ns"]) / np.array(r["predicted_ns"])]
        print(f"over {len(studies)} seeds: median program {_pct(float(np.median(every)))}, 90th percentile "
              f"{_pct(float(np.quantile(every, 0.9)))}, "
              f"{100 * inside:.1f} % inside the intervals at a "
              f"median width of {float(np.median(widths)) if widths else math.nan:.2f} of the prediction; "
              f"per-seed median {_pct(min(s['median'] for s in studies))}"
              f"-{_pct(max(s['median'] for s in studies))}, coverage "
              f"{_pct(min(s['coverage'] or 0 for s in studies))}-{_pct(max(s['coverage'] or 0 for s in studies))}")
    repeats = [(s["label"], s["repeat"]["repeatability"]) for s in studies if "repeat" in s]
    if repeats:
        print("each study measured twice: median program, over the sizes |second / first - 1| (measured, "
              "predicted) and |predicted / measured - 1| (each study's own, and the first prediction against "
              "the second measurement)")
        print(f"{'study':16s} {'programs':>8s} {'measured':>9s} {'predicted':>9s} {'error 1st':>9s} "
              f"{'error 2nd':>9s} {'1st vs 2nd':>10s}")
        for label, r in repeats:
            print(f"{label:16s} {r['programs']:8d} {_pct(r['measured']):>9s} {_pct(r['predicted']):>9s} "
                  f"{_pct(r['error_first']):>9s} {_pct(r['error_second']):>9s} {_pct(r['across']):>10s}")
    if args.json:
        args.json.write_text(json.dumps({"machine": {"cpu": _cpu(), "cores": os.cpu_count(), "load_before": load0,
                                                     "busy_processes": args.load,
                                                     "steadiness": [s.to_json() for s in steady],
                                                     "pace_moved": moved},
                                         "x": args.x, "rounds": args.rounds, "studies": studies}, indent=1))


if __name__ == "__main__":
    main()
