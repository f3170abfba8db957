"""Write the example experiments in this folder, deterministically, with perfcompose's own writers.

    python examples/make_examples.py

The series follow the unit models of the paper (times in ns):

* nop:   5422.97                    (constant, high variation: 20 % noise)
* inc:   536.185 * x
* qsort: 1034.17 * x * log2(x)

measured at x = 1024 * 2^k, k = 0..8, five repetitions each with 2 % multiplicative Gaussian
noise, plus a two-parameter kernel 2 + 0.5 * p * n^(1/2) for Extra-P's JSON format, and a
runtime table T(n, p) of a checksum farm for skeleton-based estimation (seconds):
T(n) = 2e-6 + 1.5e-9 * n * log2(n) sequentially, T(n)/p + 4e-6 * p + 2e-11 * n * p on p PEs, 1 %
noise, and the inclusive times of a solver's call paths over the process count p (seconds,
see CALLPATHS). The random generator has a fixed seed, so running the script again rewrites the same bytes.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from perfcompose.data import Experiment, Point, Series, save

HERE = Path(__file__).resolve().parent
SEED = 20240607
REPETITIONS = 5
X = tuple(1024 * 2 ** k for k in range(9))  # 1024 ... 262144

# region -> (model in ns, relative noise)
TASKS = {
    "nop": (lambda x: 5422.97 + 0.0 * x, 0.20),
    "inc": (lambda x: 536.185 * x, 0.02),
    "qsort": (lambda x: 1034.17 * x * np.log2(x), 0.02),
}


def _repetitions(rng: np.random.Generator, truth: float, noise: float, decimals: int) -> tuple[float, ...]:
    """``REPETITIONS`` noisy measurements of ``truth``: multiplicative Gaussian noise, never negative."""
    values = truth * (1.0 + noise * rng.standard_normal(REPETITIONS))
    values = np.abs(values)  # a 5-sigma draw must not give a negative time
    return tuple(float(v) for v in np.round(values, decimals))


def _task_series(rng: np.random.Generator, region: str) -> Series:
    model, noise = TASKS[region]
    points = tuple(Point((float(x),), _repetitions(rng, float(model(x)), noise, decimals=2)) for x in X)
    return Series("time", points, region=region, unit="ns")


def qsort_experiment(rng: np.random.Generator) -> Experiment:
    return Experiment(("x",), (_task_series(rng, "qsort"),))


def tasks_experiment(rng: np.random.Generator) -> Experiment:
    return Experiment(("x",), tuple(_task_series(rng, region) for region in TASKS))


def kernel_experiment(rng: np.random.Generator) -> Experiment:
    points = []
    for p in (4, 8, 16, 32, 64):
        for n in (10, 20, 40, 80, 160):
            truth = 2.0 + 0.5 * p * n ** 0.5
            points.append(Point((float(p), float(n)), _repetitions(rng, truth, 0.01, decimals=5)))
    return Experiment(("p", "n"), (Series("time", tuple(points), region="kernel", unit="s"),))


#: call path -> own (exclusive) time in s of a solver over the process count p, 2 % noise
CALLPATHS = {
    "main": lambda p: 0.5 + 0.0 * p,
    "main->init": lambda p: 2.0 + 1e-3 * p,
    "main->solve": lambda p: 10.0 + 0.0 * p,
    "main->solve->compute": lambda p: 40.0 + 0.0 * p,
    "main->solve->halo": lambda p: 1.5 + 0.02 * np.sqrt(p),
    "main->solve->MPI_Allreduce": lambda p: 0.2 * np.log2(p) + 1e-4 * p * np.log2(p),
    "main->finalize": lambda p: 0.3 + 0.0 * p,
}


def callpaths_experiment(rng: np.random.Generator) -> Experiment:
    """Inclusive times of every call path of :data:`CALLPATHS`: a run's caller holds its own
    time and its callees' of the same run."""
    ps = (64, 128, 256, 512, 1024, 2048)
    own = {path: [model(p) * (1.0 + 0.02 * rng.standard_normal(REPETITIONS)) for p in ps]
           for path, model in CALLPATHS.items()}

    def inclusive(path: str) -> list[np.ndarray]:
        callees = [c for c in CALLPATHS if c.rpartition("->")[0] == path]
        return [own[path][k] + sum((inclusive(c)[k] for c in callees), np.zeros(REPETITIONS))
                for k in range(len(ps))]

    series = tuple(Series("time", tuple(Point((float(p),), tuple(float(v) for v in np.round(values, 4)))
                                        for p, values in zip(ps, inclusive(path))), region=path, unit="s")
                   for path in CALLPATHS)
    return Experiment(("p",), series)


def checksum_table(rng: np.random.Generator) -> str:
    """A runtime table in the papers' wide form: n, the sequential time, then p = 1, 2, 4."""
    lines = ["# A checksum farm over blocks of n elements, p PEs; seconds (synthetic, see make_examples.py)",
             "n,seq,1,2,4"]
    for n in (1024, 4096, 16384, 65536, 262144):
        seq = 2e-6 + 1.5e-9 * n * np.log2(n)
        times = [seq] + [seq / p + 4e-6 * p + 2e-11 * n * p for p in (1, 2, 4)]
        noisy = [t * (1.0 + 0.01 * rng.standard_normal()) for t in times]
        lines.append(",".join([str(n)] + [f"{t:.4g}" for t in noisy]))
    return "\n".join(lines) + "\n"


def main(out: Path = HERE) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    # one generator stream per data set, so that changing one example leaves the others' bytes
    # alone; tasks.csv and tasks.txt share a stream and so hold the same measurements
    jobs = [
        ("qsort.json", qsort_experiment, 1),
        ("tasks.csv", tasks_experiment, 2),
        ("tasks.txt", tasks_experiment, 2),
        ("kernel.extrap.json", kernel_experiment, 3),
        ("callpaths.txt", callpaths_experiment, 5),
    ]
    for name, build, stream in jobs:
        rng = np.random.default_rng([SEED, stream])
        path = out / name
        save(build(rng), path)
        written.append(path)
    table = out / "skeleton" / "checksum.csv"
    table.parent.mkdir(exist_ok=True)
    table.write_text(checksum_table(np.random.default_rng([SEED, 4])))
    written.append(table)
    return written


if __name__ == "__main__":
    for path in main():
        print(f"wrote {path}")
