"""Extra-P opens the saved experiments perfcompose writes, and sees the same data and models.

    [EXTRAP_REPO=/path/to/extra-p/extrap] python benchmarks/extrap_saved_check.py [--limit N]

Every input (the project's examples and, with ``EXTRAP_REPO``, every input under Extra-P's
tests/data, as ``extrap_inputs.py`` lists them) that perfcompose reads is fitted and written with ``fit
--save-experiment``'s writer. Extra-P 4.2.5 (``.venv-extrap``, made by ``compare_extrap.sh``)
then opens each archive with its own reader and evaluates every model of the set at the measured
points, models the experiment itself (its default modeler) and saves that too; perfcompose reads
Extra-P's models back from that archive. The table gives, per file, how many series Extra-P
read, the largest relative difference between Extra-P's evaluation of perfcompose's models and
perfcompose's, whether the repetitions came back unchanged, and the largest relative difference
between perfcompose's evaluation of Extra-P's saved models and Extra-P's.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from perfcompose.data import load
from perfcompose.data.extrap_saved import write
from perfcompose.errors import PerfcomposeError
from perfcompose.fit import PMNFFitter
from perfcompose.fit.extrap_models import model_set, saved_model_sets
from perfcompose.fit.pmnf import predict

sys.path.insert(0, str(Path(__file__).resolve().parent))
from extrap_inputs import EXTRAP_PYTHON, require_extrap, test_data  # noqa: E402
from extrap_inputs import inputs as extrap_test_inputs  # noqa: E402

HERE = Path(__file__).resolve().parent

# run by Extra-P's Python: for each archive, per series, the repetitions and the model's values
EXTRAP_SIDE = """
import json, sys, warnings
import numpy as np
warnings.filterwarnings("ignore")
from extrap.fileio.experiment_io import read_experiment, write_experiment
from extrap.modelers.model_generator import ModelGenerator

def values(models, key, X):
    f = models[key].hypothesis.function
    return np.broadcast_to(f.evaluate(X[0] if len(X) == 1 else X), (X.shape[1],)).tolist()

out = {}
for path in sys.argv[1:]:
    try:
        e = read_experiment(path)
    except Exception as exc:
        out[path] = {"error": f"{type(exc).__name__}: {exc}"}
        continue
    ours = e.modelers[0].models
    try:
        theirs = ModelGenerator(e, name="Extra-P")
        theirs.model_all()
        write_experiment(e, path + ".extrap.extra-p")
    except Exception as exc:   # Extra-P's modeler fails on some inputs; ours is still checked
        theirs = None
    series = {}
    for (cp, metric), ms in e.measurements.items():
        X = np.array([m.coordinate.as_tuple() for m in ms], dtype=float).T
        series[f"{cp.name}/{metric.name}"] = {
            "coordinates": X.T.tolist(), "values": [list(map(float, m.values)) for m in ms],
            "model": values(ours, (cp, metric), X),
            "extrap_model": values(theirs.models, (cp, metric), X) if theirs else None}
    out[path] = {"series": series}
print(json.dumps(out))
"""


def inputs(data: Path | None) -> list[Path]:
    files = [HERE.parent / "examples" / "tasks.txt", HERE.parent / "examples" / "kernel.extrap.json",
             HERE.parent / "examples" / "qsort.json"]
    return files + (extrap_test_inputs(data) if data is not None else [])


def ours(path: Path, folder: Path, k: int) -> tuple[Path, dict[str, tuple[np.ndarray, list, np.ndarray]]] | None:
    """Fit and write one input; None where perfcompose does not read or fit it."""
    try:
        exp = load(path)
        results = PMNFFitter().fit(exp).results_
    except PerfcomposeError:
        return None
    out = folder / f"{k}.extra-p"
    write(exp, out, [model_set(exp, results)])
    expected = {}
    for s, r in zip(exp.series, results):
        X = s.coordinates()
        expected[f"{s.region or 'main'}/{s.metric}"] = (X, [list(p.values) for p in s.points], predict(r.chosen, X))
    return out, expected


def _relative(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300)))


def compare(expected: dict, got: dict, extraps: dict[tuple[str, str], Any] | None
            ) -> tuple[int, float, bool, float]:
    """Series Extra-P read, the largest relative difference of our models as Extra-P evaluates
    them, whether the data agree, and the largest relative difference of Extra-P's own models as
    perfcompose reads them back from the archive Extra-P saved (NaN where Extra-P's modeler failed)."""
    worst, same, back = 0.0, True, 0.0
    for key, (X, values, model) in expected.items():
        theirs = got.get(key)
        if theirs is None:
            return 0, np.inf, False, np.inf
        order = {tuple(c): k for k, c in enumerate(theirs["coordinates"])}
        idx = [order[tuple(c)] for c in X.tolist()]
        same &= all(sorted(v) == sorted(theirs["values"][i]) for v, i in zip(values, idx))
        worst = max(worst, _relative(np.asarray(theirs["model"])[idx], model))
        if extraps is None or theirs["extrap_model"] is None:
            back = np.nan
            continue
        read = extraps[tuple(key.rsplit("/", 1))]
        mine = read(**{p: X[:, k] for k, p in enumerate(read.params)}) if read.params else read()
        back = max(back, _relative(np.broadcast_to(mine, (len(X),)), np.asarray(theirs["extrap_model"])[idx]))
    return len(expected), worst, same, back


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=0, help="check only the first N inputs")
    args = ap.parse_args(argv)
    console = Console()
    require_extrap(console)
    with contextlib.ExitStack() as stack:
        data = stack.enter_context(test_data()) if os.environ.get("EXTRAP_REPO") else None
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        files = inputs(data)[:args.limit or None]
        written = {f: w for k, f in enumerate(files) if (w := ours(f, tmp, k)) is not None}
        run = subprocess.run([str(EXTRAP_PYTHON), "-c", EXTRAP_SIDE, *[str(w[0]) for w in written.values()]],
                             capture_output=True, text=True, check=False)
        if run.returncode:
            sys.exit(f"Extra-P's side failed:\n{run.stderr[-3000:]}")
        got = json.loads(run.stdout.strip().splitlines()[-1])
        table = Table(title="perfcompose's .extra-p archives opened by Extra-P 4.2.5", title_justify="left")
        for col in ("input", "series", "ours in Extra-P", "repetitions unchanged", "Extra-P's in perfcompose"):
            table.add_column(col, justify="left" if col == "input" else "right")
        agree = 0
        for f, (archive, expected) in written.items():
            answer = got[str(archive)]
            if "error" in answer:
                table.add_row(f.name, "0", answer["error"], "-")
                continue
            theirs = Path(str(archive) + ".extrap.extra-p")
            extraps = saved_model_sets(theirs)["Extra-P"] if theirs.exists() else None
            n, worst, same, back = compare(expected, answer["series"], extraps)
            agree += n == len(expected) and worst < 1e-9 and same and not back >= 1e-9
            table.add_row("/".join(f.parts[-2:]), str(n), f"{worst:.1e}", "yes" if same else "NO", f"{back:.1e}")
        console.print(table)
    console.print(f"{agree} of {len(written)} archives read by Extra-P with the same data and models, and "
                  f"Extra-P's own models read back by perfcompose where its modeler ran (model values within 1e-9); "
                  f"{len(files) - len(written)} inputs perfcompose does not fit")
    sys.exit(0 if agree == len(written) else 1)


if __name__ == "__main__":
    main()
