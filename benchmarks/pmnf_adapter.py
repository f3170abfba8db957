"""perfcompose's PMNF fitter as an adapter of the shared PMNF fitter benchmark (bench/fit).

Run from the benchmark's folder with this folder on the path, e.g.

    PYTHONPATH=/path/to/perfcompose/benchmarks python run_adapter.py \
        --adapter pmnf_adapter:make --name perfcompose --data bench_out/datasets.json

The adapter sees only the measurements; it aggregates repetitions by median, as perfcompose does
by default, and reports the chosen PMNF terms, predictions and fit statistics.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from perfcompose.fit import PMNFFitter
from perfcompose.fit.pmnf import predict


class PerfcomposeAdapter:
    def __init__(self, aggregate: str = "median", **options: Any):
        self.fitter = PMNFFitter(aggregate=aggregate, **options)
        self.aggregate = aggregate
        opts = "".join(f", {k}={v}" for k, v in options.items())
        self.name = f"perfcompose[{aggregate}{opts}]"

    def search_space(self) -> set:
        from pmnf import exp_pair  # the benchmark's own module
        return {exp_pair(i, j) for i, j in self.fitter.factors_}

    def fit(self, m: Any) -> Any:
        from pmnf import exp_pair
        from scoring import Fit

        values = np.asarray(m.values, dtype=float)
        y = {"median": np.median, "mean": np.mean, "min": np.min, "max": np.max}[self.aggregate](values, axis=1)
        result = self.fitter.fit_arrays(np.asarray(m.points, dtype=float), values, m.params)
        decomposed = result.model.terms()
        assert decomposed is not None
        constant, terms = decomposed
        neutral = [(t.coefficient, tuple(exp_pair(*t.exponent(p)) for p in m.params)) for t in terms]
        model = result.model
        return Fit(model=model.to_extrap(),
                   predict=lambda X: model(**{p: np.asarray(X, dtype=float)[:, k] for k, p in enumerate(m.params)}),
                   terms=neutral,
                   info={k: result.stats[k] for k in ("smape", "adj_r2", "cv_error")})


def make(**kwargs: Any) -> PerfcomposeAdapter:
    return PerfcomposeAdapter(**kwargs)
