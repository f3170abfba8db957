"""Predictions for code that is not perfcompose's own: programs of everyday library stages.

Seven stages from well-known libraries (NumPy filtering, sorting, FFT and rounding, zlib, hashlib's
BLAKE2, the json module; ``examples/stages/library_stages.py``) in eight programs of at most two
workers: ``seq`` chains whose later stages receive another stage's output, pipes, task pools of
a stage and of a chain, a pool of a stage that holds the GIL, and a pipe of a chain. Each program
runs for real in the validation study's interleaved rounds and is predicted twice: by the papers'
operators over the parts timed alone on fresh input (the anchor, measured in the same run) and by
the calibrated operators over the parts measured in context with their co-run slowdowns. Per
program the table gives both errors (median and max over the sizes), how many measured points lie
inside the 90 % interval and the interval's median width relative to the prediction; below it,
the parts whose context changed their cost, the pairs that slow each other down, the pools whose
threads run one at a time, and those pools predicted on processes.

    python benchmarks/user_code.py [--x 4096:65536] [--rounds 5] [--json out.json] [--restart]

Measurements are checkpointed under ``.perfcompose/``: an interrupted run resumes (``--restart``
measures anew). The figures are about this machine: its core count, memory bandwidth and caches
set how much co-running stages slow each other down, and other work on it is retaken where it
disturbs a run.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples" / "stages"))

import library_stages as stages  # noqa: E402

from perfcompose.bench.runner import parse_values  # noqa: E402
from perfcompose.validate.modular import study  # noqa: E402

STAGES = ("smooth", "sort", "spectrum", "quantize", "pack", "digest", "encode")
PROGRAMS = (
    "seq(smooth, quantize, pack)",
    "seq(spectrum, pack)",
    "pipe(smooth, pack)",
    "pipe(sort, digest)",
    "tpool_2(encode)",
    "tpool_2(sort)",
    "tpool_2(seq(quantize, pack))",
    "pipe(seq(spectrum, quantize), pack)",
)


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--x", default="4096:65536", help="sizes (samples per element): LO:HI powers of two")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    parser.add_argument("--restart", action="store_true", help="measure anew instead of resuming")
    args = parser.parse_args()
    functions = {name: getattr(stages, name) for name in STAGES}
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    last = [0.0]

    def progress(label: str, done: int, total: int) -> None:
        now = time.perf_counter()
        if now - last[0] > 10 or done == total:
            last[0] = now
            print(f"  {label}: {done}/{total}", file=sys.stderr, flush=True)

    result = study(PROGRAMS, parse_values(args.x), rounds=args.rounds, functions=functions, make=stages.signal,
                   checkpoints=ROOT / ".perfcompose", restart=args.restart, progress=progress)
    elapsed = time.perf_counter() - t0
    print(f"{_cpu()}, {os.cpu_count()} cores; load average {load0:.2f} before, {os.getloadavg()[0]:.2f} after; "
          f"{elapsed:.0f} s; x = {', '.join(f'{v:g}' for v in result.x)}; {result.rounds} rounds")
    print(f"{'program':38s} {'calibrated med / max':>21s} {'papers ops med / max':>21s} {'inside':>7s} "
          f"{'width':>6s}")
    rows = []
    for c in result.comparisons:
        predicted = np.asarray(c.calibrated(x=np.array(c.x)), dtype=float)
        width = float(np.median((np.array(c.high) - np.array(c.low)) / predicted)) if c.low else float("nan")
        flag = " !" if c.disturbed else ""
        print(f"{c.configuration + flag:38s} {100 * c.error_calibrated:9.1f} / {100 * max(c.errors_calibrated):6.1f} % "
              f"{100 * c.error_paper:9.1f} / {100 * max(c.errors_paper):6.1f} % "
              f"{sum(c.inside):3d}/{len(c.inside):<3d} {width:6.2f}")
        rows.append({"program": c.configuration, "calibrated_median": c.error_calibrated,
                     "calibrated_max": max(c.errors_calibrated), "papers_median": c.error_paper,
                     "papers_max": max(c.errors_paper), "inside": sum(c.inside), "points": len(c.inside),
                     "width": width, "disturbed": c.disturbed})
    cal = [r["calibrated_median"] for r in rows]
    pap = [r["papers_median"] for r in rows]
    print(f"median over programs: calibrated {100 * np.median(cal):.1f} % (worst program {100 * max(cal):.1f} %), "
          f"papers' operators {100 * np.median(pap):.1f} % (worst {100 * max(pap):.1f} %); ratio calibrated / "
          f"papers' {np.median(cal) / max(np.median(pap), 1e-12):.2f}")
    coverage, width = result.coverage, result.width
    print(f"coverage of the 90 % intervals {100 * (coverage or 0):.0f} %, median width {width or 0:.3f} of the "
          f"value; {result.retaken} runs taken again for other work, {result.disturbed} kept disturbed")
    for e in result.context_effects:
        print(f"in context: {e.part} takes {e.ratio:.2f}x its time on fresh input (x = {e.x:g})")
    for s in (s for s in result.slowdowns if s.notable):
        note = " -> runs one at a time (a lock such as the GIL)" if s.locked else ""
        print(f"co-run: {s.a} beside {s.b}: {s.median:.2f}x ({s.low:.2f}-{s.high:.2f}){note}")
    for p in result.process_options:
        print(f"with processes: {p.program} {p.processes[-1] / 1e6:.2f} ms instead of {p.threads[-1] / 1e6:.2f} ms "
              f"on threads at x = {result.x[-1]:g}")
    if args.json:
        args.json.write_text(json.dumps({
            "machine": {"cpu": _cpu(), "cores": os.cpu_count(), "load_before": load0}, "seconds": elapsed,
            "x": list(result.x), "programs": rows, "coverage": coverage, "width": width,
            "context_effects": [e.to_json() for e in result.context_effects],
            "slowdowns": [s.to_json() for s in result.slowdowns],
            "process_options": [p.to_json(result.x) for p in result.process_options]}, indent=1))


if __name__ == "__main__":
    main()
