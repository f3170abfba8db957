"""Run mypy and hold every module to its baseline: the number of type errors it may still have.

The baseline (tools/mypy_baseline.json, module path -> allowed errors) may only shrink: this
script fails when a module has more errors than its baseline allows (a module not listed allows
none), and says where a baseline can be lowered. ``--lower`` writes the lower counts back (it
never raises one).

    python tools/check_types.py           # check
    python tools/check_types.py --lower   # after fixing errors: shrink the baseline to match
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "tools" / "mypy_baseline.json"
_ERROR = re.compile(r"^(?P<path>[^:\s]+\.py):\d+(?::\d+)?: error: ")


def count_errors(mypy_output: str) -> Counter[str]:
    """Errors per module path in mypy's output (notes are not errors)."""
    return Counter(m["path"] for line in mypy_output.splitlines() if (m := _ERROR.match(line)))


def compare(counts: Counter[str], baseline: dict[str, int]) -> tuple[list[str], list[str]]:
    """(modules over their baseline, modules whose baseline can be lowered), as lines to print."""
    over = [f"{path}: {n} type errors, baseline allows {baseline.get(path, 0)}"
            for path, n in sorted(counts.items()) if n > baseline.get(path, 0)]
    lower = [f"{path}: baseline {allowed}, now {counts.get(path, 0)}"
             for path, allowed in sorted(baseline.items()) if counts.get(path, 0) < allowed]
    return over, lower


def lowered(counts: Counter[str], baseline: dict[str, int]) -> dict[str, int]:
    """The baseline with every count brought down to today's, never up; modules at 0 dropped."""
    out = {path: min(allowed, counts.get(path, 0)) for path, allowed in baseline.items()}
    return {path: n for path, n in sorted(out.items()) if n > 0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lower", action="store_true", help="shrink the baseline to today's counts")
    args = parser.parse_args(argv)
    run = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", "--no-pretty"], cwd=ROOT,
                         capture_output=True, text=True)
    counts = count_errors(run.stdout)
    if run.returncode not in (0, 1) or (run.returncode == 1 and not counts):
        sys.stderr.write(run.stdout + run.stderr)
        print("mypy did not run to the end; see its output above", file=sys.stderr)
        return 2
    baseline = json.loads(BASELINE.read_text())
    over, lower = compare(counts, baseline)
    if args.lower:
        baseline = lowered(counts, baseline)
        BASELINE.write_text(json.dumps(baseline, indent=1) + "\n")
        print(f"baseline lowered for {len(lower)} modules")
        lower = []
    for line in over:
        print(f"error: {line}")
    for line in lower:
        print(f"can be lowered: {line} (python tools/check_types.py --lower)")
    total = sum(counts.values())
    print(f"mypy: {total} errors in {len(counts)} modules; baseline allows {sum(baseline.values())}")
    if over:
        print("fix the new type errors above (the baseline may only shrink)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
