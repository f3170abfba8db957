"""000 Table 1 rows 9-13 (GrPPi, Hadoop, transfer) and Figure 4 (Hadoop), recomposed from the
models the paper prints, and the MapReduce figures of Tables 3 and 5 that the measurements on
Dask (:mod:`.mapreduce`) are set beside; nothing here is measured.

Rows 9 and 10 give eq. 6, M = x·(M[map](1) + M[reduce](768))/n, the modular column of Table 3.
Rows 11-13 give Figure 4: Hadoop on m nodes x n threads, k(x) = 768 keys of d(x) = x values,
with eq. 5 and the shuffle of eq. 7, (m·n − 1)/(m·n)·12288·x bytes sent at the transfer model.
The runs of Figure 4 are weak scaling: one picture per node, replicated once per thread, so
x = m·n map inputs, one per thread.

Row 13 as printed, 0.125·x ns for x bytes, is 8 bytes per ns (64 Gb/s); the text derives it from
"1 Gb/s = 0.125 B/ns", which is 8 ns per byte. Both readings are computed; the figure's own
values are not printed (only "all but one below 20 %"), so the prediction cannot be compared
with them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from perfcompose.compose.operators import compose
from perfcompose.model import Model

#: 000 Table 5: group -> (min, max, median, mean, std) of the relative error in %
PAPER_TABLE5: dict[str, tuple[float, float, float, float, float]] = {
    "all": (0.08, 93.68, 31.01, 37.24, 21.24), "small": (27.05, 93.68, 57.68, 59.68, 16.85),
    "medium": (6.21, 62.75, 31.23, 32.34, 12.88), "large": (0.08, 35.88, 24.41, 20.03, 9.06),
    "pairwise": (0.15, 72.62, 28.26, 32.02, 16.92), "local": (0.48, 91.52, 31.44, 38.93, 22.37),
    "shuffle": (0.08, 93.68, 34.93, 40.75, 22.89),
    "n=1": (0.08, 48.69, 27.54, 25.47, 13.96), "n=2": (2.11, 57.87, 28.60, 29.35, 15.31),
    "n=4": (5.09, 68.02, 31.01, 35.58, 18.36), "n=8": (10.99, 77.54, 32.38, 40.53, 19.89),
    "n=12": (12.95, 76.81, 33.55, 40.42, 20.36), "n=24": (14.64, 93.68, 44.67, 51.98, 26.28),
    "m=1": (0.08, 88.57, 19.89, 28.22, 23.62), "m=2": (23.48, 91.91, 33.02, 41.59, 18.31),
    "m=4": (23.22, 93.68, 36.16, 42.09, 18.26),
}

#: 000 Table 3 (GrPPi, m = 1, pairwise): n -> (monolithic, modular) [ns per input], error %
PAPER_TABLE3: dict[int, tuple[float, float, float]] = {
    1: (2.177e7, 2.186e7, 0.41), 2: (1.108e7, 1.093e7, 1.35), 4: (5.705e6, 5.465e6, 4.21),
    8: (3.067e6, 2.733e6, 10.89), 12: (2.066e6, 1.822e6, 11.81), 24: (1.065e6, 0.911e6, 14.46),
}
#: 000 Table 1 rows 9-10: GrPPi's map and reduce [ns]
PAPER_GRPPI = {"map": "1.241e7", "reduce_p": "9.449e6"}
#: 000 Table 1 rows 9-13: row, task, model [ns], variability as printed
PAPER_TABLE1_REST: list[tuple[int, str, str, str]] = [
    (9, "map_grppi", "1.241e7", "6.27 (std)"),
    (10, "reduce_grppi", "9.449e6", "6.85 (std)"),
    (11, "map_hadoop", "3.529e7", "2.55 (std)"),
    (12, "reduce_hadoop", "9376*x", "(3.13, 3.89, 4.27, 4.78, 5.79) (CV)"),
    (13, "transfer", "0.125*x", "N/A"),
]
#: eq. 6 as printed: M[map](1) + M[reduce](768) [ns]
PAPER_EQ6 = "2.186e7"
#: the grid of Figure 4
FIG4_M = (1, 2, 4, 8, 12, 24)
FIG4_N = (1, 2, 4, 8, 12, 24)
KEYS = 768
#: bytes of one histogram entry as the paper assumes it (two 8-byte LongWritables)
ENTRY_BYTES = 16

#: how row 13 is read: as printed (0.125 ns per byte) or as the text derives it (8 ns per byte)
TransferReading = Literal["printed", "text"]


def _model(text: str) -> Model:
    return Model.parse(text, params=("x",), unit="ns")


def transfer_model(reading: TransferReading = "printed") -> Model:
    """Row 13: the time to send x bytes [ns]."""
    return _model("0.125*x" if reading == "printed" else "8*x")


@dataclass(frozen=True)
class RestRow:
    """One of rows 9-13 and where it enters: the composed figure next to the paper's."""

    row: int
    task: str
    model: str
    variability: str
    used_in: str
    composed: float | None = None
    printed: float | None = None

    @property
    def error(self) -> float | None:
        """(composed − printed) / printed."""
        return None if self.composed is None or self.printed is None else (self.composed - self.printed) / self.printed


def grppi_term(n: int) -> str:
    """000 eq. 6 as a term: GrPPi's MapReduce on one node with n threads, pairwise reduction."""
    return f"mapreduce(map=map, reduce=reduce_p, m=1, n={n}, keys=x, per_key={KEYS})"


def grppi_parts() -> dict[str, Model]:
    return {k: _model(v) for k, v in PAPER_GRPPI.items()}


def table1_rest() -> list[RestRow]:
    """Rows 9-13, each with the figure it gives when recomposed (per input, x = 1)."""
    eq6 = float(compose(grppi_term(1), grppi_parts())(x=1.0))
    one = hadoop_point(1, 1)
    models = {task: model for _, task, model, _ in PAPER_TABLE1_REST}
    uses = {
        9: ("eq. 6: M[map](1) + M[reduce](768), Table 3's modular column at n = 1", eq6, float(PAPER_EQ6)),
        10: ("eq. 6 (with row 9)", eq6, float(PAPER_EQ6)),
        11: ("Figure 4: map phase, x·M[map](1)/(m·n) at x = m·n", one.map, None),
        12: ("Figure 4: reduce phase, 768·M[reduce](x)/(m·n) at x = m·n", one.reduce, None),
        13: (("Figure 4: shuffle, eq. 7 bytes at this rate; 12288 B take "
              f"{float(transfer_model('printed')(x=12288.0)):.4g} ns as printed, "
              f"{float(transfer_model('text')(x=12288.0)):.4g} ns at 1 Gb/s"), None, None),
    }
    return [RestRow(row, task, models[task], var, *uses[row]) for row, task, _, var in PAPER_TABLE1_REST]


@dataclass(frozen=True)
class Table3Check:
    """Table 3's modular column recomposed from rows 9-10 (eq. 6), and the paper's error recomputed."""

    n: int
    composed: float
    printed_modular: float
    printed_monolithic: float
    printed_error: float

    @property
    def modular_error(self) -> float:
        return (self.composed - self.printed_modular) / self.printed_modular

    @property
    def error(self) -> float:
        """|modular − monolithic| / monolithic in %, from the printed models, as Table 3's last column."""
        return 100 * abs(self.printed_modular - self.printed_monolithic) / self.printed_monolithic


def table3_check() -> list[Table3Check]:
    parts = grppi_parts()
    return [Table3Check(n, float(compose(grppi_term(n), parts)(x=1.0)), mod, mono, err)
            for n, (mono, mod, err) in PAPER_TABLE3.items()]


@dataclass(frozen=True)
class HadoopPoint:
    """Figure 4 at m nodes x n threads: eq. 5 per phase [ns] (x = m·n inputs)."""

    m: int
    n: int
    map: float
    shuffle: float
    reduce: float
    shuffle_text: float

    @property
    def total(self) -> float:
        return self.map + self.shuffle + self.reduce

    @property
    def total_text(self) -> float:
        """The same with the transfer read as the text derives it (8 ns per byte)."""
        return self.map + self.shuffle_text + self.reduce

    def to_json(self) -> dict[str, Any]:
        """The point as ``paper fig4 --json`` writes it: the phases and both totals [ns]."""
        return {**self.__dict__, "total": self.total, "total_text": self.total_text, "unit": "ns"}


def hadoop_point(m: int, n: int) -> HadoopPoint:
    """Eq. 5 for Hadoop at m x n with x = m·n: map, shuffle (eq. 7 through row 13), reduce."""
    mn = m * n
    x = float(mn)
    # rows 11-12: Hadoop's map (one input) and reduce (x values of one key) [ns]
    map_phase = x * float(_model("3.529e7")(x=1.0)) / mn
    reduce_phase = KEYS * float(_model("9376*x")(x=x)) / mn
    sent = (mn - 1) / mn * KEYS * ENTRY_BYTES * x
    return HadoopPoint(m, n, map_phase, float(transfer_model("printed")(x=sent)), reduce_phase,
                       float(transfer_model("text")(x=sent)))


def hadoop_grid() -> list[HadoopPoint]:
    """Figure 4's 36 configurations, 1-24 nodes x 1-24 threads."""
    return [hadoop_point(m, n) for m in FIG4_M for n in FIG4_N]
