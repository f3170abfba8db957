"""A study's rounds as measured curves: the statistic a term's runs over the rounds count
(the fastest), the log-log curves through it with the bootstrap's members, and the
parts, probes and overheads the calibrated composer is built from."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from perfcompose.compose.calibrated import Overheads
from perfcompose.ensemble import SampledEnsemble
from perfcompose.model import Model


def dense_grid(x: Sequence[float], per_octave: int = 4) -> tuple[float, ...]:
    """The sizes of ``x`` and ``per_octave`` sizes per power of two between its ends (Table 1's
    quick grid for 2^10 ... 2^18): the grid the parts are measured on, so the fitter sees enough
    of each part's curve to tell x from x^(3/4) log2(x)^2."""
    lo, hi = np.log2(min(x)), np.log2(max(x))
    steps = np.arange(np.ceil(lo * per_octave), np.floor(hi * per_octave) + 1) / per_octave
    return tuple(sorted({float(v) for v in x} | {float(round(2 ** s)) for s in steps}))


def over_rounds(values: Any, axis: int = -1, keepdims: bool = False) -> np.ndarray:
    """A term's time over its rounds' runs: the fastest (the same statistic for the programs, the
    parts and the probes). On a shared or virtual machine a run now and then falls into a slow
    spell that stretches it as a whole (1.5-2x on the 2-core development VM: in one study
    ``formatted`` at x = 4096 took 2.5 and 2.7 ms in two rounds and 1.4-1.6 ms in three), and the
    program and each of its parts meet such spells in different rounds. The fastest round is each
    term's time outside them; a chain composed of its parts' fastest rounds then matches the
    program's fastest within 2.5 % at the median chain, where their 0.65 quantiles, which follow
    the spells, differed by 4.2 % (90th percentile 6.5 % against 14.6 %; benchmarks/user_code.py,
    185 chains of 70 seeds, docs/uncertainty.md)."""
    return np.min(np.asarray(values, dtype=float), axis=axis, keepdims=keepdims)


def median_round(values: Any, axis: int = -1) -> np.ndarray:
    """A ratio's typical round (the median over the rounds): what a co-run slowdown beside
    another chain counts, where the lock the two share is shared otherwise in every run."""
    return np.median(np.asarray(values, dtype=float), axis=axis)


def resampled_rounds(values: np.ndarray, picks: np.ndarray,
                     statistic: Callable[[np.ndarray], np.ndarray] = over_rounds) -> np.ndarray:
    """``statistic`` (over the last axis; the fastest round by default) of resampled rounds:
    ``values`` (sizes, rounds), ``picks`` (members, rounds) of round indices -> (members, sizes)."""
    return np.asarray(statistic(values[:, picks])).T


def loglog(x: Sequence[float], values: Any) -> Callable[[Any], Any]:
    """Linear interpolation in log-log through (x, values), constant beyond the ends."""
    lx = np.log(np.asarray(x, dtype=float))
    ly = np.log(np.maximum(np.asarray(values, dtype=float), 1e-6))
    return lambda xv: np.exp(np.interp(np.log(np.asarray(xv, dtype=float)), lx, ly))


def curve_members(x: Sequence[float], medians: np.ndarray, central: Model) -> Model:
    """``central`` (a measured curve) carrying one member per row of ``medians`` [ns]: the same
    log-log interpolation through each resample's medians."""
    curves = [loglog(x, row) for row in np.asarray(medians, dtype=float)]
    return central.with_meta(ensemble=SampledEnsemble(lambda x: np.stack([f(x) for f in curves]), len(curves),
                                                      ("x",)))


def curve(name: str, x: Sequence[float], values: Sequence[Sequence[float]]) -> Model:
    """The measured times [ns] (:func:`over_rounds`) as a model: linear interpolation in log-log between the
    measured sizes (constant beyond them), for predictions that show the operators' error
    rather than a fit's."""
    f = loglog(x, [float(over_rounds(v)) * 1e9 for v in values])
    return Model.numeric(name, f, ("x",), unit="ns", source="measured")


def piped_probe(part: str) -> str:
    """The program a pipe stage is timed in: the part with a one-pass ``touch`` stage after it."""
    return f"pipe({part}, touch)"


@dataclass(frozen=True)
class Rounds:
    """The rounds' runs of every term [s], and the bootstrap's resamples of the rounds."""

    runs: Mapping[tuple[int, float], list[float]]
    index: Mapping[str, int]
    xs: tuple[float, ...]
    picks: np.ndarray

    @property
    def width(self) -> int:
        return int(self.picks.shape[1])

    def series(self, term: str) -> list[list[float]]:
        return [self.runs[(self.index[term], v)] for v in self.xs]

    def matrix(self, term: str) -> np.ndarray:
        """The term's runs [s]: (sizes, rounds)."""
        return np.array([self.runs[(self.index[term], v)][:self.width] for v in self.xs])

    def contention(self, k: int) -> np.ndarray:
        """What k workers at once add to a one-pass probe: k T[tpool_k(touch)] - T[touch] [s]."""
        if k == 1:
            return np.zeros((len(self.xs), self.width))
        return k * self.matrix(f"tpool_{k}(touch)") - self.matrix("touch")

    def curve(self, name: str, values: np.ndarray, members: np.ndarray | None) -> Model:
        """Measured times as a model [ns], with one member per resample when given."""
        central = curve(name, self.xs, values.tolist())
        return central if members is None else curve_members(self.xs, members * 1e9, central)

    def predicted(self, name: str, values: np.ndarray, members: np.ndarray | None) -> Model:
        """Predicted times [ns] at the sizes as a model (log-log interpolation between them), with
        one member per row of ``members`` [ns] when given."""
        ident = "".join(c if c.isalnum() else "_" for c in name).strip("_") or "program"
        model = Model.numeric(f"in_context_{ident}", loglog(self.xs, values), ("x",), unit="ns",
                              source="composed in context")
        return model if members is None else curve_members(self.xs, members, model)

    def resampled(self, values: np.ndarray) -> np.ndarray:
        return resampled_rounds(values, self.picks)

    def resampled_median(self, values: np.ndarray) -> np.ndarray:
        return resampled_rounds(values, self.picks, median_round)


def calibration(rounds: Rounds, parts: Sequence[str], levels: Sequence[int],
                 members: bool) -> tuple[dict[int, dict[str, Model]], Overheads, dict[int, dict[str, Model]]]:
    """The parts in the executor at every concurrency, the executor's overheads and the pipe
    stages in their probe (at two workers and more), as measured curves (with the bootstrap's
    members when ``members``). A part's time per element when k workers run at once is its own
    time in the executor plus the contention k one-pass probes meet; a pipe stage's is its probe
    (:func:`piped_probe`, two workers) plus what k workers add to a one-pass probe beyond what
    two do."""
    def measured(name: str, base: np.ndarray, extra: np.ndarray) -> Model:
        """``base`` plus ``extra``'s statistic over the rounds [s], as a curve."""
        values = base + over_rounds(extra, axis=1, keepdims=True)
        return rounds.curve(name, values, rounds.resampled(base) + rounds.resampled(extra) if members else None)

    concurrent = {k: {p: measured(f"{p}_{k}", rounds.matrix(p), rounds.contention(k)) for p in parts} for k in levels}
    nop, pipe, zero = rounds.matrix("nop"), rounds.matrix("pipe(touch, touch)"), rounds.contention(1)
    overheads = Overheads(stream=measured("o", nop, zero), pipe=measured("P", pipe, zero))
    piped = {k: {p: measured(f"{p}_piped_{k}", rounds.matrix(piped_probe(p)),
                             rounds.contention(k) - rounds.contention(2))
                 for p in parts if piped_probe(p) in rounds.index} for k in levels if k >= 2}
    return concurrent, overheads, piped
