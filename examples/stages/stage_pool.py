"""A pool of stages of everyday library code, from which programs are drawn at random.

Every stage is a function of one data element that takes whatever the stage before it handed on
(a NumPy array, bytes, text or a list) and hands on something of its own type and size: the
compressors shrink their input, ``unique`` keeps the distinct values, the text stages write one
token per value, the checksums pass their input on unchanged. The stages come from 15 kinds of
code: compression, hashing, array arithmetic, BLAS (on its own threads), FFT, sorting and set
operations, regular expressions, serialisation, pure-Python data processing (which holds the
GIL), SQLite, decimal and fraction arithmetic, signal and image filters, statistics, text
processing and spatial search. ``signal(x)`` makes an element: x samples of a noisy sine.

``KINDS`` maps each stage's name to its kind; ``STAGES`` maps it to its function. Run from this
folder, any of them as a task of ``validate``::

    perfcompose validate "seq(lzma, counter)" "tpool_2(gemm)" --task lzma=stage_pool:lzma \\
        --task counter=stage_pool:counter --task gemm=stage_pool:gemm --input stage_pool:signal \\
        --x 2048:32768
"""
from __future__ import annotations

import base64
import bisect
import bz2
import collections
import csv
import decimal
import fractions
import hashlib
import heapq
import io
import itertools
import json
import lzma as _lzma
import math
import pickle
import re
import sqlite3
import statistics as _statistics
import struct
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import ndimage
from scipy import signal as _signal
from scipy.spatial import cKDTree

_RNG = np.random.default_rng(2025)
_HANN = np.hanning(31) / np.hanning(31).sum()
_BUTTER = _signal.butter(4, 0.1)


def signal(x: float) -> np.ndarray:
    """x samples of a noisy sine (float64; a fresh one on every call)."""
    n = int(x)
    return 1000.0 * np.sin(np.arange(n) / 40.0) + _RNG.normal(0.0, 50.0, n)


# --- what a stage makes of the element it receives -----------------------------------------


def as_array(d: Any) -> np.ndarray:
    """The element as a float64 vector: an array flattened, a list's numbers, bytes and text as
    one value per 8 bytes (so an element keeps its number of values through a byte stage)."""
    if isinstance(d, np.ndarray):
        return d.ravel().astype(np.float64, copy=False)
    if isinstance(d, str):
        d = d.encode("utf-8", "replace")
    if isinstance(d, (bytes, bytearray, memoryview)):
        raw = bytes(d)
        raw += b"\0" * (-len(raw) % 8)
        return (np.frombuffer(raw, dtype=np.uint64) >> np.uint64(40)).astype(np.float64)
    if isinstance(d, dict):
        d = list(d.values())
    return np.asarray([float(v) for v in d], dtype=np.float64)


def as_bytes(d: Any) -> bytes:
    """The element's bytes: an array's buffer, text in UTF-8, a list's numbers as float64."""
    if isinstance(d, (bytes, bytearray, memoryview)):
        return bytes(d)
    if isinstance(d, str):
        return d.encode("utf-8", "replace")
    return as_array(d).tobytes()


def as_text(d: Any) -> str:
    """The element as text: text as it is, bytes read as Latin-1, numbers one token each."""
    if isinstance(d, str):
        return d
    if isinstance(d, (bytes, bytearray, memoryview)):
        return bytes(d).decode("latin-1")
    return " ".join(f"{v:.2f}" for v in as_array(d).tolist())


def as_list(d: Any) -> list[float]:
    """The element's numbers as a Python list."""
    if isinstance(d, list):
        return d
    return as_array(d).tolist()


def _square(a: np.ndarray) -> np.ndarray:
    """The values as the largest square matrix they fill (at least 2 x 2)."""
    k = max(int(math.isqrt(a.size)), 2)
    return np.resize(a, k * k).reshape(k, k)


# --- compression ---------------------------------------------------------------------------


def zlib6(d: Any) -> bytes:
    """zlib, level 6."""
    return zlib.compress(as_bytes(d), 6)


def zlib1(d: Any) -> bytes:
    """zlib, level 1 (fast)."""
    return zlib.compress(as_bytes(d), 1)


def bzip2(d: Any) -> bytes:
    """bzip2, level 1, of the first quarter of the element's bytes."""
    b = as_bytes(d)
    return bz2.compress(b[:len(b) // 4], 1)


def lzma(d: Any) -> bytes:
    """LZMA (xz), preset 0, of the first half of the element's bytes."""
    b = as_bytes(d)
    return _lzma.compress(b[:len(b) // 2], preset=0)


def inflate(d: Any) -> bytes:
    """zlib there and back: the element's bytes compressed and decompressed."""
    return zlib.decompress(zlib.compress(as_bytes(d), 3))


# --- hashing (each passes its input on) ------------------------------------------------------


def sha256(d: Any) -> Any:
    """SHA-256 of the element's bytes."""
    hashlib.sha256(as_bytes(d)).digest()
    return d


def md5(d: Any) -> Any:
    """MD5 of the element's bytes."""
    hashlib.md5(as_bytes(d)).digest()
    return d


def blake2(d: Any) -> Any:
    """BLAKE2b of the element's bytes."""
    hashlib.blake2b(as_bytes(d)).digest()
    return d


def crc32(d: Any) -> Any:
    """CRC-32 of the element's bytes."""
    zlib.crc32(as_bytes(d))
    return d


# --- array arithmetic ------------------------------------------------------------------------


def cumsum(d: Any) -> np.ndarray:
    """The running sum."""
    return np.cumsum(as_array(d))


def diff(d: Any) -> np.ndarray:
    """Differences of neighbours."""
    return np.diff(as_array(d), prepend=0.0)


def quantize(d: Any) -> np.ndarray:
    """The values rounded to 16-bit integers."""
    return np.clip(np.rint(as_array(d)), -32768, 32767).astype(np.int16)


def standardize(d: Any) -> np.ndarray:
    """Mean 0 and standard deviation 1."""
    a = as_array(d)
    return (a - a.mean()) / (a.std() or 1.0)


def polyval(d: Any) -> np.ndarray:
    """A cubic of every value (Horner, four passes)."""
    a = as_array(d) * 1e-3
    return ((0.5 * a - 1.5) * a + 2.0) * a + 3.0


# --- BLAS (OpenBLAS runs a product on threads of its own) -------------------------------------


def gemm(d: Any) -> np.ndarray:
    """The values as a square matrix times itself (a BLAS product), flattened."""
    m = _square(as_array(d))
    return (m @ m).ravel()


def gram(d: Any) -> np.ndarray:
    """The values as a matrix of 32 columns, its Gram matrix's product with it."""
    a = as_array(d)
    m = np.resize(a, (max(a.size // 32, 1), 32))
    return (m @ (m.T @ m)).ravel()


def solve(d: Any) -> np.ndarray:
    """A diagonally dominant system made of the values, solved by LU (LAPACK)."""
    m = _square(as_array(d))
    k = m.shape[0]
    return np.linalg.solve(m + (np.abs(m).sum() / k + 1.0) * np.eye(k), m).ravel()


# --- FFT -------------------------------------------------------------------------------------


def spectrum(d: Any) -> np.ndarray:
    """Magnitudes of the real FFT (x/2 + 1 values)."""
    return np.abs(np.fft.rfft(as_array(d)))


def lowpass(d: Any) -> np.ndarray:
    """The FFT's upper half set to zero and transformed back."""
    a = as_array(d)
    f = np.fft.rfft(a)
    f[f.size // 2:] = 0
    return np.fft.irfft(f, a.size)


def fftconv(d: Any) -> np.ndarray:
    """A 257-tap filter through the FFT (SciPy's fftconvolve)."""
    return _signal.fftconvolve(as_array(d), np.hanning(257), mode="same")


# --- sorting and sets ------------------------------------------------------------------------


def npsort(d: Any) -> np.ndarray:
    """NumPy's sort."""
    return np.sort(as_array(d))


def ranks(d: Any) -> np.ndarray:
    """Each value's rank (argsort of the argsort)."""
    return np.argsort(np.argsort(as_array(d), kind="stable"), kind="stable").astype(np.float64)


def unique(d: Any) -> np.ndarray:
    """The distinct values rounded to integers, sorted (fewer values than it receives)."""
    return np.unique(np.rint(as_array(d)))


def pysorted(d: Any) -> list[float]:
    """Python's sorted() of the values (holds the GIL)."""
    return sorted(as_list(d))


def topk(d: Any) -> list[float]:
    """The largest tenth of the values with heapq, and the rest after them (holds the GIL)."""
    values = as_list(d)
    k = max(len(values) // 10, 1)
    return heapq.nlargest(k, values) + values[k:]


def bisection(d: Any) -> list[int]:
    """Where each value falls among 1024 sorted cut points (bisect, holds the GIL)."""
    values = as_list(d)
    cuts = sorted(values[:: max(len(values) // 1024, 1)])
    return [bisect.bisect(cuts, v) for v in values]


# --- regular expressions -------------------------------------------------------------------


_NUMBER = re.compile(r"-?\d+\.\d+")
_DIGITS = re.compile(r"[0-9]+")
_WORD = re.compile(r"\S+")


def numbers(d: Any) -> list[float]:
    """The decimal numbers in the element's text (re.findall)."""
    text = as_text(d)
    found = [float(t) for t in _NUMBER.findall(text)]
    return found or [float(len(text))]


def redact(d: Any) -> str:
    """The element's text with every run of digits replaced (re.sub)."""
    return _DIGITS.sub("#", as_text(d))


def tokens(d: Any) -> list[float]:
    """The length of every whitespace-separated token (re.finditer)."""
    found = [float(m.end() - m.start()) for m in _WORD.finditer(as_text(d))]
    return found or [0.0]


# --- serialisation ---------------------------------------------------------------------------


def tojson(d: Any) -> str:
    """The values as a JSON list with one decimal (the json module)."""
    return json.dumps([round(v, 1) for v in as_list(d)])


def fromjson(d: Any) -> list[float]:
    """The element through JSON text and back (json.dumps and json.loads)."""
    return [float(v) for v in json.loads(json.dumps(as_list(d)))]


def roundtrip(d: Any) -> Any:
    """The element through pickle and back."""
    return pickle.loads(pickle.dumps(d, protocol=pickle.HIGHEST_PROTOCOL))


def b64(d: Any) -> bytes:
    """The element's bytes in Base64."""
    return base64.b64encode(as_bytes(d))


def tocsv(d: Any) -> str:
    """The values as CSV rows of eight (the csv module)."""
    values = as_list(d)
    out = io.StringIO()
    writer = csv.writer(out)
    for i in range(0, len(values), 8):
        writer.writerow(values[i:i + 8])
    return out.getvalue()


def structs(d: Any) -> bytes:
    """The values packed as records of a double and an int (struct)."""
    pack = struct.Struct("<di").pack
    return b"".join(pack(v, i) for i, v in enumerate(as_list(d)))


# --- pure Python (holds the GIL) ------------------------------------------------------------


def counter(d: Any) -> list[float]:
    """How often each value occurs, rounded to tens (collections.Counter), by value."""
    counts = collections.Counter(int(v) // 10 for v in as_list(d))
    return [float(c) for _, c in sorted(counts.items())]


def groupmeans(d: Any) -> list[float]:
    """The values grouped by their hundreds, each group's mean (a dict of lists)."""
    groups: dict[int, list[float]] = collections.defaultdict(list)
    for v in as_list(d):
        groups[int(v) // 100].append(v)
    return [sum(g) / len(g) for g in groups.values()]


def squares(d: Any) -> list[float]:
    """Each value's square plus its neighbour's (a list comprehension)."""
    values = as_list(d)
    return [a * a + b for a, b in zip(values, values[1:] + values[:1])]


def runningmax(d: Any) -> list[float]:
    """The running maximum (itertools.accumulate)."""
    return list(itertools.accumulate(as_list(d), max))


# --- SQLite ----------------------------------------------------------------------------------


def sqlgroup(d: Any) -> list[float]:
    """Every fourth value in an in-memory SQLite table, averaged by their hundreds (GROUP BY)."""
    con = sqlite3.connect(":memory:")
    con.execute("create table t (k integer, v real)")
    con.executemany("insert into t values (?, ?)", ((int(v) // 100, v) for v in as_list(d)[::4]))
    out = [float(r[0]) for r in con.execute("select avg(v) from t group by k order by k")]
    con.close()
    return out


def sqlsort(d: Any) -> list[float]:
    """Every fourth value in an in-memory SQLite table with an index, read back in order."""
    con = sqlite3.connect(":memory:")
    con.execute("create table t (v real)")
    con.executemany("insert into t values (?)", ((v,) for v in as_list(d)[::4]))
    con.execute("create index tv on t (v)")
    out = [r[0] for r in con.execute("select v from t order by v")]
    con.close()
    return out


# --- decimal and fraction arithmetic ---------------------------------------------------------


def decimals(d: Any) -> list[float]:
    """Every fourth value as a Decimal, rounded to cents, their running total (the decimal module)."""
    cent = decimal.Decimal("0.01")
    total = decimal.Decimal(0)
    out = []
    for v in as_list(d)[::4]:
        total += decimal.Decimal(v).quantize(cent)
        out.append(float(total))
    return out


def fractions_(d: Any) -> list[float]:
    """Every eighth value as a Fraction of a thousandth, their running mean (the fractions module)."""
    total = fractions.Fraction(0)
    out = []
    for i, v in enumerate(as_list(d)[::8], 1):
        total += fractions.Fraction(round(v * 1000), 1000)
        out.append(float(total / i))
    return out


# --- signal and image filters -----------------------------------------------------------------


def gaussian(d: Any) -> np.ndarray:
    """A Gaussian filter, sigma 4 (SciPy ndimage)."""
    return ndimage.gaussian_filter1d(as_array(d), 4.0)


def median5(d: Any) -> np.ndarray:
    """A running median of 5 (SciPy ndimage)."""
    return ndimage.median_filter(as_array(d), size=5)


def butter(d: Any) -> np.ndarray:
    """A 4th-order Butterworth low-pass (SciPy's lfilter)."""
    return _signal.lfilter(*_BUTTER, as_array(d))


def blur(d: Any) -> np.ndarray:
    """The values as a square image, a 5 x 5 box blur (SciPy ndimage), flattened."""
    return ndimage.uniform_filter(_square(as_array(d)), size=5).ravel()


def hann(d: Any) -> np.ndarray:
    """A 31-tap Hann filter (NumPy's convolve)."""
    return np.convolve(as_array(d), _HANN, mode="same")


# --- statistics ------------------------------------------------------------------------------


def histogram(d: Any) -> np.ndarray:
    """A histogram of 256 bins, and the values after it (NumPy)."""
    a = as_array(d)
    counts, _ = np.histogram(a, bins=256)
    return np.concatenate([counts.astype(np.float64), a])


def percentiles(d: Any) -> np.ndarray:
    """The values minus their 99 percentiles' nearest (NumPy's percentile and searchsorted)."""
    a = as_array(d)
    q = np.percentile(a, np.arange(1, 100))
    return a - q[np.clip(np.searchsorted(q, a), 0, q.size - 1)]


def pystats(d: Any) -> list[float]:
    """Mean, deviation and median of every block of 64 values (the statistics module)."""
    values = as_list(d)
    out = []
    for i in range(0, len(values) - 1, 64):
        block = values[i:i + 64] or [0.0]
        out.extend((_statistics.fmean(block), _statistics.median(block)))
    return out or [0.0]


# --- text ------------------------------------------------------------------------------------


def upper(d: Any) -> str:
    """The text in capitals with its words reversed (str methods)."""
    return " ".join(reversed(as_text(d).upper().split()))


def wordfreq(d: Any) -> list[float]:
    """How often each word occurs, most frequent first (split and Counter)."""
    counts = collections.Counter(as_text(d).split())
    return [float(c) for _, c in counts.most_common()] or [0.0]


def formatted(d: Any) -> str:
    """Every value formatted in scientific notation, one per line (str.format)."""
    return "\n".join(f"{v:.6e}" for v in as_list(d))


# --- spatial search --------------------------------------------------------------------------


def neighbours(d: Any) -> np.ndarray:
    """The values as 2-D points, each one's distance to its nearest other (SciPy's cKDTree)."""
    a = as_array(d)
    pts = np.resize(a, (max(a.size // 2, 2), 2))
    dist, _ = cKDTree(pts).query(pts, k=2)
    return dist[:, 1]


def neighbours_threads(d: Any) -> np.ndarray:
    """As ``neighbours``, the queries on every core (cKDTree's workers=-1: threads of its own)."""
    a = as_array(d)
    pts = np.resize(a, (max(a.size // 2, 2), 2))
    dist, _ = cKDTree(pts).query(pts, k=2, workers=-1)
    return dist[:, 1]


#: every stage by name, with its kind
KINDS: dict[str, str] = {
    **dict.fromkeys(("zlib6", "zlib1", "bzip2", "lzma", "inflate"), "compression"),
    **dict.fromkeys(("sha256", "md5", "blake2", "crc32"), "hashing"),
    **dict.fromkeys(("cumsum", "diff", "quantize", "standardize", "polyval"), "array arithmetic"),
    **dict.fromkeys(("gemm", "gram", "solve"), "BLAS"),
    **dict.fromkeys(("spectrum", "lowpass", "fftconv"), "FFT"),
    **dict.fromkeys(("npsort", "ranks", "unique", "pysorted", "topk", "bisection"), "sorting and sets"),
    **dict.fromkeys(("numbers", "redact", "tokens"), "regular expressions"),
    **dict.fromkeys(("tojson", "fromjson", "roundtrip", "b64", "tocsv", "structs"), "serialisation"),
    **dict.fromkeys(("counter", "groupmeans", "squares", "runningmax"), "pure Python"),
    **dict.fromkeys(("sqlgroup", "sqlsort"), "SQLite"),
    **dict.fromkeys(("decimals", "fractions_"), "decimal and fractions"),
    **dict.fromkeys(("gaussian", "median5", "butter", "blur", "hann"), "filters"),
    **dict.fromkeys(("histogram", "percentiles", "pystats"), "statistics"),
    **dict.fromkeys(("upper", "wordfreq", "formatted"), "text"),
    **dict.fromkeys(("neighbours", "neighbours_threads"), "spatial search"),
}
STAGES: dict[str, Callable[[Any], Any]] = {name: globals()[name] for name in KINDS}
