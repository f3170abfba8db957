"""The hypotheses of several parameters: additive and multiplicative combinations of each
parameter's candidate factors, as templates of column indices shared by every series."""
from __future__ import annotations

import functools
import itertools
from functools import lru_cache
from typing import cast

import numpy as np

from perfcompose.fit.hypotheses import Factor
from perfcompose.fit.result import Hypothesis

__all__ = ["MAX_COMBINATIONS", "SCREEN_CELLS", "SCREEN_KEEP", "candidates_within", "combination_templates",
           "key_columns", "TemplateHypotheses", "template_layout"]

# Several parameters: the product of the per-parameter candidate list lengths (absent included)
# that the additive/multiplicative search may combine; beyond it fewer candidates per parameter
# are kept (4 parameters: 2 each), since the number of hypotheses grows as that product squared.
MAX_COMBINATIONS = 125
# Several parameters, many points: when hypotheses times points exceed SCREEN_CELLS, every
# hypothesis is first scored from the Gram matrix of the columns (cost independent of the
# number of points) and only the SCREEN_KEEP best are fitted exactly and ranked.
SCREEN_CELLS = 1 << 21
SCREEN_KEEP = 256


def candidates_within(count: int, d: int, limit: int) -> int:
    """The most candidates per parameter (at most ``count``, at least 1) whose combinations over
    ``d`` parameters, each also absent, stay within ``limit``."""
    while count > 1 and (count + 1) ** d > limit:
        count -= 1
    return count


@lru_cache(maxsize=64)
def combination_templates(sizes: tuple[int, ...], max_terms: int = 3
                           ) -> tuple[list[tuple[tuple[int, int], ...]], dict[int, np.ndarray]]:
    """Every additive/multiplicative hypothesis over per-parameter candidate lists of ``sizes``
    (candidate 0: absent): the column keys (products of one candidate per parameter of a subset)
    and, per number of terms, the hypotheses as rows of column indices."""
    d = len(sizes)
    subsets = [s for r in range(1, d + 1) for s in itertools.combinations(range(d), r)]
    key_index: dict[tuple[tuple[int, int], ...], int] = {}
    found: dict[int, set[tuple[int, ...]]] = {}
    for choice in itertools.product(*[range(n) for n in sizes]):
        active = {k for k in range(d) if choice[k] != 0}
        usable = [sub for sub in subsets if active.issuperset(sub)]
        cols = [key_index.setdefault(tuple((k, choice[k]) for k in sub), len(key_index)) for sub in usable]
        for r in range(0, min(len(usable), max_terms) + 1):
            for combo in itertools.combinations(range(len(usable)), r):
                if {k for c in combo for k in usable[c]} == active:
                    found.setdefault(r, set()).add(tuple(sorted(cols[c] for c in combo)))
    keys = sorted(key_index, key=key_index.__getitem__)
    by_size = {r: np.array(sorted(h), dtype=int).reshape(len(h), r) for r, h in sorted(found.items())}
    return keys, by_size


def key_columns(keys: list[tuple[tuple[int, int], ...]], values: list[np.ndarray]) -> np.ndarray:
    """The values of every column key: the product over its (parameter k, candidate ci) of
    ``values[k][..., ci - 1, :]`` (each parameter's candidates on the last axis but one, as the keys are)."""
    return np.stack([functools.reduce(np.multiply, [values[k][..., ci - 1, :] for k, ci in key]) for key in keys],
                    axis=-2)


class TemplateHypotheses:
    """The hypotheses of one template group, materialised on demand; ``layout`` (the column keys of
    each row of ``index``, see :func:`template_layout`) may be given where many groups share it."""

    def __init__(self, keys: list, index: np.ndarray, per_param: list[list[Factor | None]],
                 layout: list[tuple[tuple[tuple[int, int], ...], ...]] | None = None):
        self.keys, self.index, self.per_param = keys, index, per_param
        self.layout = layout

    def __len__(self) -> int:
        return len(self.index)

    def __getitem__(self, h: int) -> Hypothesis:
        pp = self.per_param
        if self.layout is not None:
            # a column's candidates are never candidate 0 (absent, None)
            return cast(Hypothesis, tuple(tuple((k, pp[k][ci]) for k, ci in key) for key in self.layout[h]))
        return tuple(tuple((k, pp[k][ci]) for k, ci in self.keys[c]) for c in self.index[h])


@lru_cache(maxsize=64)
def template_layout(sizes: tuple[int, ...], r: int) -> list[tuple[tuple[tuple[int, int], ...], ...]]:
    """Per hypothesis of ``r`` terms of :func:`combination_templates` (``sizes``), the keys of its columns."""
    keys, by_size = combination_templates(sizes)
    return [tuple(keys[c] for c in row) for row in by_size[r].tolist()]
