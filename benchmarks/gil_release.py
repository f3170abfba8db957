"""Do the reference tasks release the GIL? Speedup of 2 threads over 1 on the same work.

Each task runs the same batch of inputs once on one thread and once split over two threads
(plain threading); the ratio of the wall times is the speedup. On 2 cores a task that releases
the GIL reaches ~1.7-2.0; one that holds it stays at ~1.0 or below.

    python benchmarks/gil_release.py [--x 262144] [--jobs 64]
"""
from __future__ import annotations

import argparse
import threading
import time

from perfcompose.bench.tasks import TASKS


def wall(run, inputs, threads: int) -> float:
    chunks = [inputs[k::threads] for k in range(threads)]

    def work(chunk):
        for args in chunk:
            run(*args)

    workers = [threading.Thread(target=work, args=(c,)) for c in chunks]
    t0 = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--x", type=float, default=262144)
    ap.add_argument("--jobs", type=int, default=64)
    ap.add_argument("--tasks", default="qsort,inc,map_large,reduce_v,nop")
    args = ap.parse_args()
    print(f"{'task':<10} {'GIL':<9} {'1 thread [s]':>13} {'2 threads [s]':>14} {'speedup':>8}")
    for name in args.tasks.split(","):
        task = TASKS[name]
        task.warm()
        point = {p: args.x for p in task.params}
        inputs = [task.setup(**point) for _ in range(args.jobs)]
        best1 = min(wall(task.run, inputs, 1) for _ in range(3))
        best2 = min(wall(task.run, inputs, 2) for _ in range(3))
        gil = "releases" if task.releases_gil else "holds"
        print(f"{name:<10} {gil:<9} {best1:>13.4f} {best2:>14.4f} {best1 / best2:>8.2f}")


if __name__ == "__main__":
    main()
