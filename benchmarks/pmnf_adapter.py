"""perfcompose's PMNF fitter as an adapter of the shared PMNF fitter benchmark (bench/fit).

Run from the benchmark's folder with this folder on the path, e.g.

    PYTHONPATH=/path/to/perfcompose/benchmarks python run_adapter.py \
        --adapter pmnf_adapter:make --name perfcompose --data bench_out/datasets.json

The adapter sees only the measurements. It hands the repetitions to the fitter (which uses their
spread as its noise estimate) with mean aggregation, since the benchmark's noise is Gaussian;
it reports the chosen PMNF terms, predictions and fit statistics. The SymPy ``Model`` of a fit
is built on first use and is not part of the timed fit. ``pmnf_adapter:make_means`` hands the
fitter only each point's mean, as Extra-P models it: one value per point, no repetitions to
measure the noise by (the fitter then estimates it from the scatter of the points).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from perfcompose.fit import PMNFFitter
from perfcompose.fit.pmnf import predict


class PerfcomposeAdapter:
    def __init__(self, aggregate: str = "mean", means_only: bool = False, **options: Any):
        self.fitter = PMNFFitter(aggregate=aggregate, **options)
        self.means_only = means_only
        opts = "".join(f", {k}={v}" for k, v in options.items())
        self.name = f"perfcompose[{'means only' if means_only else aggregate}{opts}]"

    def search_space(self) -> set:
        from pmnf import exp_pair  # the benchmark's own module
        return {exp_pair(i, j) for i, j in self.fitter.factors}

    def fit(self, m: Any) -> Any:
        from pmnf import exp_pair
        from scoring import Fit

        values = np.asarray(m.values, dtype=float)
        result = self.fitter.fit_arrays(np.asarray(m.points, dtype=float),
                                        values.mean(axis=1) if self.means_only else values, m.params)
        c = result.chosen
        terms = []
        for coef, shape in c.terms:
            exps = dict(shape)
            terms.append((coef, tuple(exp_pair(*exps.get(k, (0, 0))) for k in range(len(m.params)))))
        text = " + ".join([repr(c.constant)] + [
            " * ".join([repr(coef)] + [f"{m.params[k]}^({i})*log2({m.params[k]})^({j})" for k, (i, j) in shape])
            for coef, shape in c.terms])
        return Fit(model=text, predict=lambda X: predict(c, np.asarray(X, dtype=float)), terms=terms,
                   info={k: result.stats[k] for k in ("smape", "adj_r2", "cv_error")})


def make(**kwargs: Any) -> PerfcomposeAdapter:
    return PerfcomposeAdapter(**kwargs)


def make_means(**kwargs: Any) -> PerfcomposeAdapter:
    return PerfcomposeAdapter(means_only=True, **kwargs)
