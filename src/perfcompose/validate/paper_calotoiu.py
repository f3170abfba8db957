"""003 (Calotoiu et al., SC19 workshop) Tables I-IV as printed, recomposed from its Table I.

The tables are in microseconds with the array size n (written x here, as the composer's size);
tpool runs 1 to 8 threads. Every modular model is composed again from Table I with the papers'
operators (eq. 1-3, the asymptotic max of the pipeline) and set beside the printed one; the
relative errors are those of the leading coefficients, as the paper computes them, with the
range they span when every printed coefficient moves by half a unit of its last digit. Where 000
measured the same configuration again (in ns, on the extended framework), its monolithic model
is given beside it.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from perfcompose.compose.operators import compose
from perfcompose.compose.parser import parse_term
from perfcompose.model import Model
from perfcompose.skeleton.table import half_unit
from perfcompose.validate.modular import leading_term
from perfcompose.validate.paper import PAPER_TABLE2, PAPER_TABLE4, PAPER_TABLE6

#: 003 Table I: task -> model [us]
CALOTOIU_TABLE1: dict[str, str] = {"nop": "0.00864", "inc": "0.02599*x", "qsort": "0.03899*x*log2(x)"}

#: 003 Table II: configuration, modular model, monolithic model [us], relative error [%]
CALOTOIU_TABLE2: list[tuple[str, str, str, str]] = [
    ("tpool_1(qsort)", "0.03899*x*log2(x)", "0.03900*x*log2(x)", "0.160"),
    ("tpool_2(qsort)", "0.01946*x*log2(x)", "0.01950*x*log2(x)", "0.180"),
    ("tpool_4(qsort)", "0.00975*x*log2(x)", "0.01015*x*log2(x)", "4.043"),
    ("tpool_8(qsort)", "0.00488*x*log2(x)", "0.00545*x*log2(x)", "11.267"),
    ("pipe(qsort, nop)", "0.03899*x*log2(x)", "0.03873*x*log2(x)", "0.067"),
    ("pipe(qsort, inc)", "0.03899*x*log2(x)", "0.03891*x*log2(x)", "0.02"),
    ("pipe(inc, qsort)", "0.03899*x*log2(x)", "0.03865*x*log2(x)", "0.089"),
    ("pipe(inc, inc)", "0.02599*x", "0.02700*x", "3.802"),
    ("pipe(inc, nop)", "0.02599*x", "0.02718*x", "4.437"),
]

#: 003 Table III: pipeline associativity and commutativity, monolithic models [us]
CALOTOIU_TABLE3: list[tuple[str, str]] = [
    ("pipe(pipe(qsort, inc), nop)", "0.03873*x*log2(x)"), ("pipe(qsort, pipe(inc, nop))", "0.03900*x*log2(x)"),
    ("pipe(pipe(qsort, nop), inc)", "0.03873*x*log2(x)"), ("pipe(qsort, pipe(nop, inc))", "0.03888*x*log2(x)"),
    ("pipe(pipe(inc, qsort), nop)", "0.03877*x*log2(x)"), ("pipe(inc, pipe(qsort, nop))", "0.03894*x*log2(x)"),
    ("pipe(pipe(inc, nop), qsort)", "0.03860*x*log2(x)"), ("pipe(inc, pipe(nop, qsort))", "0.03894*x*log2(x)"),
]

#: 003 Table IV: layering, T -> (pipe(tpool_T(qsort), tpool_T(inc)), tpool_T(pipe(qsort, inc))) [us]
CALOTOIU_TABLE4: dict[int, tuple[str, str]] = {
    1: ("0.03827*x*log2(x)", "0.03914*x*log2(x)"), 2: ("0.01930*x*log2(x)", "0.01996*x*log2(x)"),
    4: ("0.01015*x*log2(x)", "0.01033*x*log2(x)"), 8: ("0.00565*x*log2(x)", "0.00563*x*log2(x)"),
}


@dataclass(frozen=True)
class CalotoiuRow:
    """One configuration of 003 Tables II-IV: printed models, the modular one composed again from
    Table I, and the relative errors (leading coefficients; fractions, not %)."""

    table: str
    configuration: str
    monolithic: str
    modular_printed: str | None
    modular: Model
    #: |modular - monolithic| / monolithic, the paper's relative error, from the composed model
    error: float
    #: the paper's relative error in % as printed (Table II only)
    error_printed: str | None = None
    #: (composed - printed) / printed of the modular leading coefficient (Table II only)
    modular_vs_printed: float | None = None
    #: 000's monolithic model of the same configuration [ns], where 000 has one
    paper000: str | None = None
    #: the range of ``error`` over the rounding of the printed coefficients
    low: float = 0.0
    high: float = 0.0

    @property
    def reproduced(self) -> bool | None:
        """Whether the printed error (in %) lies in the range, widened by its own rounding."""
        if self.error_printed is None:
            return None
        v, h = float(self.error_printed), half_unit(self.error_printed)
        return bool(100 * self.low - h <= v <= 100 * self.high + h)

    def to_json(self) -> dict[str, Any]:
        """The row as ``paper calotoiu --json`` writes it (models as text, times in us)."""
        return {"table": self.table, "configuration": self.configuration, "monolithic": self.monolithic,
                "modular": str(self.modular), "modular_printed": self.modular_printed, "error": self.error,
                "error_low": self.low, "error_high": self.high, "error_printed_percent": self.error_printed,
                "reproduced": self.reproduced, "paper000_monolithic_ns": self.paper000, "unit": "us"}


def _coefficient(model: Model) -> float:
    lead = leading_term(model)
    if lead is None:
        raise ValueError(f"{model} has no leading PMNF term")
    return float(lead[1])


def _coefficient_text(model: str) -> str:
    return model.split("*")[0].strip()


def _error_range(base: str, factor: float, mono: str) -> tuple[float, float]:
    """|factor·c - m| / m over c = base ± half a unit and m = mono's coefficient ± half a unit."""
    c, m = float(base), float(_coefficient_text(mono))
    hc, hm = half_unit(base), half_unit(_coefficient_text(mono))
    signed = [(factor * (c + a) - (m + b)) / (m + b) for a, b in itertools.product((-hc, hc), (-hm, hm))]
    lo, hi = min(signed), max(signed)
    return (0.0, max(-lo, hi)) if lo <= 0.0 <= hi else (min(abs(lo), abs(hi)), max(abs(lo), abs(hi)))


def calotoiu_tables() -> list[CalotoiuRow]:
    """Tables II, III and IV of 003, every modular model composed again from Table I."""
    parts = {k: Model.parse(v, params=("x",), unit="us") for k, v in CALOTOIU_TABLE1.items()}
    # 000's monolithic models by configuration (Tables 2, 4 and 6)
    in000 = {str(parse_term(cfg)): mono for cfg, mono in [*((c, m) for c, m, _ in PAPER_TABLE2), *PAPER_TABLE4,
                                                            *PAPER_TABLE6]}

    def row(table: str, cfg: str, mono: str, printed: str | None = None, err: str | None = None) -> CalotoiuRow:
        modular = compose(cfg, parts, pipe="asymptotic")
        c_mod, c_mono = _coefficient(modular), _coefficient(Model.parse(mono, params=("x",)))
        vs = None if printed is None else (c_mod - (c_p := _coefficient(Model.parse(printed)))) / c_p
        order = leading_term(modular)
        base = next(k for k, m in parts.items() if leading_term(m) is not None and order is not None
                    and leading_term(m)[0] == order[0])  # type: ignore[index]
        text = _coefficient_text(CALOTOIU_TABLE1[base])
        low, high = _error_range(text, c_mod / float(text), mono)
        return CalotoiuRow(table, cfg, mono, printed, modular, abs(c_mod - c_mono) / abs(c_mono), err, vs,
                           in000.get(str(parse_term(cfg))), low, high)

    layering = [(cfg, mono) for t, (a, b) in CALOTOIU_TABLE4.items()
                for cfg, mono in ((f"pipe(tpool_{t}(qsort), tpool_{t}(inc))", a), (f"tpool_{t}(pipe(qsort, inc))", b))]
    return ([row("II", cfg, mono, mod, err) for cfg, mod, mono, err in CALOTOIU_TABLE2]
            + [row("III", cfg, mono) for cfg, mono in CALOTOIU_TABLE3] + [row("IV", *pair) for pair in layering])


def spread(models: list[str]) -> float:
    """(max - min) / min of the leading coefficients: 003's "less than 10 % variation"."""
    cs = [_coefficient(Model.parse(m)) for m in models]
    return (max(cs) - min(cs)) / min(cs)
