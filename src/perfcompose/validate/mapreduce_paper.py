"""The MapReduce figures 000 prints (Tables 1, 3 and 5), which the Hadoop and GrPPi models are
recomposed from and the measurements on Dask (:mod:`.mapreduce`) are set beside."""
from __future__ import annotations

__all__ = ["PAPER_GRPPI", "PAPER_TABLE3", "PAPER_TABLE5"]

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
