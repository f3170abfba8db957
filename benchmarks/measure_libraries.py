"""Measure library code nobody here wrote at several sizes, for the real-measurement corpus.

    python benchmarks/measure_libraries.py [--sets numpy,dense,...,python] [--reps 5]
        [--out benchmarks/data/measured] [--force]

Each set is a handful of routines of NumPy, SciPy, the standard library's compressors and
hashes, SQLite, pandas, Pillow, plain Python (sorting, heaps, decimals, regular expressions,
MessagePack, dictionaries), the standard library's text processing and data structures, SciPy's
signal processing, NumPy's array operations, pandas' time series, Matplotlib drawing to PNG,
string methods, hashes and checksums, SciPy's sparse matrices, Pillow's filters, regular
expressions, numerical routines, SciPy's statistical tests and graph algorithms, plain Python
containers, compressors, or parsing and formatting, timed on one core (BLAS and OpenMP held to
one thread) at 8 sizes growing by 2x (the matrices' and the images' sides by about 1.4x),
``--reps`` runs a size, each on fresh input drawn with a fixed seed. A set is written as Extra-P text,
``<out>/<set>.txt`` (seconds of wall time, one DATA line per size, the runs in order; the load
average at its start and end is printed); a set already written is kept unless ``--force``, so
an interrupted run resumes.
``benchmarks/real_extrapolation.py`` reads these files (sets ``numpy``, ``dense``, ``scipy``,
``codecs``, ``sqlite``, ``pandas``, ``imaging``, ``python``, ``textproc``, ``signal``,
``plotting``, ``arrays``, ``stdlib``, ``timeseries``, ``strings``, ``hashing``, ``sparse``,
``filters``, ``regex``, ``numerics``, ``stats``, ``graphs``, ``containers``, ``compress``,
``formats``).
"""
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import array  # noqa: E402
import base64  # noqa: E402
import binascii  # noqa: E402
import bisect  # noqa: E402
import bz2  # noqa: E402
import collections  # noqa: E402
import copy  # noqa: E402
import csv  # noqa: E402
import datetime  # noqa: E402
import decimal  # noqa: E402
import gzip  # noqa: E402
import hashlib  # noqa: E402
import heapq  # noqa: E402
import io  # noqa: E402
import ipaddress  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import lzma  # noqa: E402
import operator  # noqa: E402
import pickle  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import sqlite3  # noqa: E402
import statistics  # noqa: E402
import struct  # noqa: E402
import textwrap  # noqa: E402
import time  # noqa: E402
import unicodedata  # noqa: E402
import uuid  # noqa: E402
import xml.etree.ElementTree as ET  # noqa: E402
import zlib  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import matplotlib  # noqa: E402
import msgpack  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import scipy.fft  # noqa: E402
import scipy.integrate  # noqa: E402
import scipy.interpolate  # noqa: E402
import scipy.linalg  # noqa: E402
import scipy.ndimage  # noqa: E402
import scipy.signal  # noqa: E402
import scipy.sparse  # noqa: E402
import scipy.sparse.csgraph  # noqa: E402
import scipy.sparse.linalg  # noqa: E402
import scipy.spatial  # noqa: E402
import scipy.special  # noqa: E402
import scipy.stats  # noqa: E402
from PIL import Image, ImageFilter, ImageOps  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.progress import Progress  # noqa: E402

from perfcompose.data import Experiment, save  # noqa: E402
from perfcompose.data.experiment import Point, Series  # noqa: E402

#: a routine: (size, random generator) -> a callable that does the timed work on fresh input
Routine = Callable[[int, np.random.Generator], Callable[[], object]]


def _text(n: int, rng: np.random.Generator) -> bytes:
    """n bytes of words drawn from a 2,000-word vocabulary (compressible like text)."""
    words = [bytes(rng.integers(97, 123, rng.integers(2, 10)).astype(np.uint8)) for _ in range(2000)]
    out = b" ".join(words[i] for i in rng.integers(0, len(words), n // 4 + 1))
    return out[:n]


def _poisson(n: int) -> scipy.sparse.csc_matrix:
    """The 5-point Laplacian on a square grid of about n unknowns."""
    side = max(2, round(n ** 0.5))
    one = scipy.sparse.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(side, side))
    eye = scipy.sparse.identity(side)
    return (scipy.sparse.kron(one, eye) + scipy.sparse.kron(eye, one)).tocsc()


def _sqlite(n: int, rng: np.random.Generator) -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.execute("create table t (k integer, g integer, v real)")
    db.executemany("insert into t values (?, ?, ?)",
                   zip(rng.permutation(n).tolist(), rng.integers(0, 100, n).tolist(), rng.random(n).tolist()))
    return db


def _sqlite_insert(n: int, rng: np.random.Generator) -> Callable[[], object]:
    rows = list(zip(rng.permutation(n).tolist(), rng.integers(0, 100, n).tolist(), rng.random(n).tolist()))
    db = sqlite3.connect(":memory:")
    db.execute("create table t (k integer, g integer, v real)")
    return lambda: db.executemany("insert into t values (?, ?, ?)", rows)


def _sql(query: str, index: bool = False) -> Routine:
    def make(n: int, rng: np.random.Generator) -> Callable[[], object]:
        db = _sqlite(n, rng)
        if index:
            db.execute("create index ik on t (k)")
        return lambda: db.execute(query).fetchall()
    return make


def _kdtree_query(n: int, rng: np.random.Generator) -> Callable[[], object]:
    tree = scipy.spatial.cKDTree(rng.random((n, 3)))
    q = rng.random((n, 3))
    return lambda: tree.query(q, k=4)


def _spd(m: int, rng: np.random.Generator) -> np.ndarray:
    a = rng.random((m, m))
    return a @ a.T + m * np.eye(m)


def _frame(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """n rows: a unique shuffled key, one of 100 groups, a float value and a short text label."""
    words = np.array(["".join(map(chr, rng.integers(97, 123, 6))) for _ in range(500)])
    return pd.DataFrame({"k": rng.permutation(n), "g": rng.integers(0, 100, n), "v": rng.random(n),
                         "s": words[rng.integers(0, len(words), n)]})


def _merge(n: int, rng: np.random.Generator) -> Callable[[], object]:
    left, right = _frame(n, rng), _frame(n, rng)[["k", "v"]]
    return lambda: left.merge(right, on="k")


def _read_csv(n: int, rng: np.random.Generator) -> Callable[[], object]:
    text = _frame(n, rng).to_csv(index=False)
    return lambda: pd.read_csv(io.StringIO(text))


def _image(side: int, rng: np.random.Generator) -> Image.Image:
    """A side x side RGB photograph-like image: smooth gradients with noise."""
    y, x = np.mgrid[0:side, 0:side] / side
    base = np.stack([np.sin(6 * x + 3 * y), np.cos(5 * y - 2 * x), np.sin(4 * x * y + 1)], axis=-1)
    pixels = 127 * (1 + base) + rng.normal(0, 12, (side, side, 3))
    return Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8), "RGB")


def _encode(fmt: str, **options: object) -> Routine:
    def make(side: int, rng: np.random.Generator) -> Callable[[], object]:
        img = _image(side, rng)
        return lambda: img.save(io.BytesIO(), fmt, **options)
    return make


def _jpeg_decode(side: int, rng: np.random.Generator) -> Callable[[], object]:
    buf = io.BytesIO()
    _image(side, rng).save(buf, "JPEG", quality=85)
    data = buf.getvalue()
    return lambda: Image.open(io.BytesIO(data)).load()


def _records(n: int, rng: np.random.Generator) -> list[dict[str, object]]:
    return [{"id": int(i), "score": float(v), "tag": f"t{int(g)}"}
            for i, v, g in zip(rng.permutation(n), rng.random(n), rng.integers(0, 50, n))]


def _heap_drain(n: int, rng: np.random.Generator) -> Callable[[], object]:
    values = rng.random(n).tolist()

    def drain() -> list[float]:
        heap = list(values)
        heapq.heapify(heap)
        return [heapq.heappop(heap) for _ in range(len(heap))]
    return drain


def _csv_text(n: int, rng: np.random.Generator) -> str:
    out = io.StringIO()
    csv.writer(out).writerows(zip(rng.integers(0, 10 ** 6, n).tolist(), _text(12 * n, rng).decode().split(" ")[:n],
                                  rng.random(n).round(6).tolist()))
    return out.getvalue()


def _xml_text(n: int, rng: np.random.Generator) -> str:
    items = "".join(f'<item id="{i}" v="{v:.4f}"><name>n{i}</name></item>' for i, v in enumerate(rng.random(n)))
    return f"<root>{items}</root>"


def _shuffle(n: int, rng: np.random.Generator) -> Callable[[], object]:
    items, r = list(range(n)), random.Random(n)
    return lambda: r.shuffle(items)


def _plot(kind: str) -> Routine:
    def make(n: int, rng: np.random.Generator) -> Callable[[], object]:
        x, y = np.sort(rng.random(n)), rng.random(n)

        def draw() -> None:
            fig, ax = plt.subplots(figsize=(4, 3), dpi=100)
            (ax.plot if kind == "line" else ax.scatter)(x, y)
            fig.savefig(io.BytesIO(), format="png")
            plt.close(fig)
        return draw
    return make


def _insort(n: int, rng: np.random.Generator) -> Callable[[], object]:
    values = rng.random(n).tolist()

    def insert() -> list[float]:
        out: list[float] = []
        for v in values:
            bisect.insort(out, v)
        return out
    return insert


def _series(n: int, rng: np.random.Generator) -> pd.Series:
    """n readings a minute, a few missing."""
    s = pd.Series(rng.random(n), index=pd.date_range("2026-01-01", periods=n, freq="min"))
    s.iloc[rng.integers(0, n, n // 50)] = np.nan
    return s


def _graph(n: int, rng: np.random.Generator) -> scipy.sparse.csr_matrix:
    """A random sparse graph of n nodes and about 4n weighted edges."""
    m = 4 * n
    return scipy.sparse.csr_matrix((rng.random(m) + 0.1, (rng.integers(0, n, m), rng.integers(0, n, m))), shape=(n, n))


def _deque_pass(n: int, rng: np.random.Generator) -> Callable[[], object]:
    items = rng.integers(0, 1 << 30, n).tolist()

    def work() -> int:
        d: collections.deque[int] = collections.deque()
        total = 0
        for v in items:
            d.append(v)
            if len(d) > 64:
                total += d.popleft()
        return total
    return work


def _dates(n: int, rng: np.random.Generator) -> list[str]:
    return [f"2024-{m:02d}-{d:02d} {h:02d}:{mi:02d}:{s:02d}" for m, d, h, mi, s in
            zip(rng.integers(1, 13, n), rng.integers(1, 29, n), rng.integers(0, 24, n), rng.integers(0, 60, n),
                rng.integers(0, 60, n))]


#: set -> (parameter, sizes, routines by name)
SETS: dict[str, tuple[str, tuple[int, ...], dict[str, Routine]]] = {
    "numpy": ("n", tuple(2 ** k for k in range(14, 22)), {
        "sort": lambda n, r: (lambda a=r.random(n): np.sort(a)),
        "argsort": lambda n, r: (lambda a=r.random(n): np.argsort(a)),
        "unique": lambda n, r: (lambda a=r.integers(0, n, n): np.unique(a)),
        "fft": lambda n, r: (lambda a=r.random(n): np.fft.fft(a)),
        "cumsum": lambda n, r: (lambda a=r.random(n): np.cumsum(a)),
        "searchsorted": lambda n, r: (lambda a=np.sort(r.random(n)), q=r.random(n): np.searchsorted(a, q)),
        "percentile": lambda n, r: (lambda a=r.random(n): np.percentile(a, [10, 50, 90])),
    }),
    "dense": ("m", (64, 96, 128, 192, 256, 384, 512, 768), {
        "matmul": lambda m, r: (lambda a=r.random((m, m)), b=r.random((m, m)): a @ b),
        "lu_factor": lambda m, r: (lambda a=r.random((m, m)): scipy.linalg.lu_factor(a)),
        "cholesky": lambda m, r: (lambda a=_spd(m, r): scipy.linalg.cholesky(a)),
        "solve": lambda m, r: (lambda a=r.random((m, m)), b=r.random(m): np.linalg.solve(a, b)),
        "eigh": lambda m, r: (lambda a=_spd(m, r): np.linalg.eigh(a)),
        "svd": lambda m, r: (lambda a=r.random((m, m)): np.linalg.svd(a)),
        "qr": lambda m, r: (lambda a=r.random((m, m)): np.linalg.qr(a)),
    }),
    "scipy": ("n", tuple(2 ** k for k in range(10, 18)), {
        "spsolve": lambda n, r: (lambda a=_poisson(n), b=r.random(_poisson(n).shape[0]):
                                scipy.sparse.linalg.spsolve(a, b)),
        "cg": lambda n, r: (lambda a=_poisson(n).tocsr(), b=r.random(_poisson(n).shape[0]):
                           scipy.sparse.linalg.cg(a, b, rtol=1e-8, maxiter=100_000)),
        "spmv": lambda n, r: (lambda a=_poisson(n).tocsr(), b=r.random(_poisson(n).shape[0]):
                             [a @ b for _ in range(20)]),
        "kdtree_build": lambda n, r: (lambda a=r.random((n, 3)): scipy.spatial.cKDTree(a)),
        "kdtree_query": _kdtree_query,
        "convex_hull": lambda n, r: (lambda a=r.random((n, 2)): scipy.spatial.ConvexHull(a)),
    }),
    "codecs": ("bytes", tuple(2 ** k for k in range(14, 22)), {
        "zlib_compress": lambda n, r: (lambda d=_text(n, r): zlib.compress(d, 6)),
        "zlib_decompress": lambda n, r: (lambda d=zlib.compress(_text(n, r), 6): zlib.decompress(d)),
        "lzma_compress": lambda n, r: (lambda d=_text(n, r): lzma.compress(d, preset=1)),
        "bz2_compress": lambda n, r: (lambda d=_text(n, r): bz2.compress(d, 9)),
        "sha256": lambda n, r: (lambda d=_text(n, r): hashlib.sha256(d).digest()),
        "json_roundtrip": lambda n, r: (lambda d=_text(n, r).decode().split(" "): json.loads(json.dumps(d))),
    }),
    "sqlite": ("rows", tuple(2 ** k for k in range(10, 18)), {
        "insert": _sqlite_insert,
        "create_index": lambda n, r: (lambda db=_sqlite(n, r): db.execute("create index ik on t (k)")),
        "order_by": _sql("select k, v from t order by v"),
        "group_by": _sql("select g, count(*), avg(v) from t group by g"),
        "self_join": _sql("select count(*) from t a join t b on a.k = b.k + 1", index=True),
        "scan_filter": _sql("select count(*) from t where v < 0.5 and g > 10"),
    }),
    "pandas": ("rows", tuple(2 ** k for k in range(12, 20)), {
        "sort_values": lambda n, r: (lambda df=_frame(n, r): df.sort_values("v")),
        "groupby_mean": lambda n, r: (lambda df=_frame(n, r): df.groupby("g")["v"].mean()),
        "merge": _merge,
        "read_csv": _read_csv,
        "rolling_mean": lambda n, r: (lambda df=_frame(n, r): df["v"].rolling(16).mean()),
        "str_upper": lambda n, r: (lambda df=_frame(n, r): df["s"].str.upper()),
        "drop_duplicates": lambda n, r: (lambda df=_frame(n, r): df.drop_duplicates(subset=["g", "s"])),
    }),
    "imaging": ("side", (128, 181, 256, 362, 512, 724, 1024, 1448), {
        "resize": lambda m, r: (lambda img=_image(m, r): img.resize((m // 2, m // 2), Image.Resampling.LANCZOS)),
        "gaussian_blur": lambda m, r: (lambda img=_image(m, r): img.filter(ImageFilter.GaussianBlur(2))),
        "rotate": lambda m, r: (lambda img=_image(m, r): img.rotate(33, Image.Resampling.BICUBIC)),
        "jpeg_encode": _encode("JPEG", quality=85),
        "jpeg_decode": _jpeg_decode,
        "png_encode": _encode("PNG"),
        "to_grayscale": lambda m, r: (lambda img=_image(m, r): img.convert("L")),
    }),
    "python": ("items", tuple(2 ** k for k in range(12, 20)), {
        "sorted_strings": lambda n, r: (lambda a=[f"{v:.12f}" for v in r.random(n)]: sorted(a)),
        "heap_drain": _heap_drain,
        "decimal_sum": lambda n, r: (lambda a=[decimal.Decimal(f"{v:.6f}") for v in r.random(n)]: sum(a)),
        "regex_findall": lambda n, r: (lambda t=_text(8 * n, r).decode(): re.findall(r"\b[a-f]\w{2,5}\b", t)),
        "msgpack_roundtrip": lambda n, r: (lambda a=_records(n, r): msgpack.unpackb(msgpack.packb(a))),
        "dict_build": lambda n, r: (lambda a=r.integers(0, n, n).tolist(): {k: k * 2 for k in a}),
    }),
    "textproc": ("items", tuple(2 ** k for k in range(11, 19)), {
        "csv_read": lambda n, r: (lambda t=_csv_text(n, r): list(csv.reader(io.StringIO(t)))),
        "xml_parse": lambda n, r: (lambda t=_xml_text(n, r): ET.fromstring(t)),
        "base64_encode": lambda n, r: (lambda d=_text(64 * n, r): base64.b64encode(d)),
        "median": lambda n, r: (lambda a=r.random(n).tolist(): statistics.median(a)),
        "textwrap_fill": lambda n, r: (lambda t=_text(6 * n, r).decode(): textwrap.fill(t, 72)),
        "unicode_normalize": lambda n, r: (lambda t=("é" + _text(n, r).decode()) * 4: unicodedata.normalize("NFD", t)),
        "shuffle": _shuffle,
    }),
    "signal": ("n", tuple(2 ** k for k in range(12, 20)), {
        "fftconvolve": lambda n, r: (lambda a=r.random(n), k=r.random(255): scipy.signal.fftconvolve(a, k, "same")),
        "gaussian_filter": lambda n, r: (lambda a=r.random(n): scipy.ndimage.gaussian_filter1d(a, 4.0)),
        "cubic_spline": lambda n, r: (lambda x=np.sort(r.random(n)) + np.arange(n), y=r.random(n):
                                      scipy.interpolate.CubicSpline(x, y)(x + 0.5)),
        "rankdata": lambda n, r: (lambda a=r.integers(0, n // 4, n): scipy.stats.rankdata(a)),
        "dct": lambda n, r: (lambda a=r.random(n): scipy.fft.dct(a)),
        "medfilt": lambda n, r: (lambda a=r.random(n): scipy.signal.medfilt(a, 9)),
    }),
    "arrays": ("n", tuple(2 ** k for k in range(14, 22)), {
        "histogram": lambda n, r: (lambda a=r.random(n): np.histogram(a, 100)),
        "partition": lambda n, r: (lambda a=r.random(n): np.partition(a, n // 2)),
        "lexsort": lambda n, r: (lambda a=r.integers(0, 100, n), b=r.random(n): np.lexsort((b, a))),
        "isin": lambda n, r: (lambda a=r.integers(0, n, n), b=r.integers(0, n, n // 8): np.isin(a, b)),
        "bincount": lambda n, r: (lambda a=r.integers(0, 1000, n): np.bincount(a)),
        "convolve": lambda n, r: (lambda a=r.random(n), k=r.random(31): np.convolve(a, k, "same")),
        "einsum": lambda n, r: (lambda a=r.random((n // 64, 64)), b=r.random((64, 8)): np.einsum("ij,jk->ik", a, b)),
    }),
    "stdlib": ("items", tuple(2 ** k for k in range(11, 19)), {
        "struct_pack": lambda n, r: (lambda a=r.random(n).tolist(): struct.pack(f"{n}d", *a)),
        "array_tobytes": lambda n, r: (lambda a=r.random(n).tolist(): array.array("d", a).tobytes()),
        "insort": _insort,
        "groupby": lambda n, r: (lambda a=sorted(r.integers(0, n // 8, n).tolist()):
                                 [(k, len(list(g))) for k, g in itertools.groupby(a)]),
        "deepcopy": lambda n, r: (lambda a=[[i, str(i), {"v": i}] for i in range(n)]: copy.deepcopy(a)),
        "pickle_roundtrip": lambda n, r: (lambda a=_records(n, r): pickle.loads(pickle.dumps(a))),
    }),
    "timeseries": ("rows", tuple(2 ** k for k in range(12, 20)), {
        "resample_mean": lambda n, r: (lambda s=_series(n, r): s.resample("h").mean()),
        "interpolate": lambda n, r: (lambda s=_series(n, r): s.interpolate()),
        "rolling_median": lambda n, r: (lambda s=_series(n, r): s.rolling(30).median()),
        "pivot_table": lambda n, r: (lambda df=_frame(n, r): df.pivot_table(index="g", columns=df["k"] % 8,
                                                                             values="v", aggfunc="sum")),
        "value_counts": lambda n, r: (lambda df=_frame(n, r): df["s"].value_counts()),
        "to_json": lambda n, r: (lambda df=_frame(n, r): df.to_json(orient="records")),
    }),
    "strings": ("words", tuple(2 ** k for k in range(12, 20)), {
        "join": lambda n, r: (lambda w=_text(8 * n, r).decode().split(" "): " ".join(w)),
        "split": lambda n, r: (lambda t=_text(8 * n, r).decode(): t.split()),
        "replace": lambda n, r: (lambda t=_text(8 * n, r).decode(): t.replace("ab", "xyz")),
        "format": lambda n, r: (lambda a=r.random(n).tolist(): [f"{v:10.4f}" for v in a]),
        "encode_utf16": lambda n, r: (lambda t=_text(8 * n, r).decode(): t.encode("utf-16")),
        "hex": lambda n, r: (lambda d=_text(8 * n, r): d.hex()),
        "translate": lambda n, r: (lambda t=_text(8 * n, r).decode(): t.translate(str.maketrans("aeiou", "AEIOU"))),
    }),
    "hashing": ("bytes", tuple(2 ** k for k in range(14, 22)), {
        "md5": lambda n, r: (lambda d=_text(n, r): hashlib.md5(d).digest()),
        "sha1": lambda n, r: (lambda d=_text(n, r): hashlib.sha1(d).digest()),
        "sha512": lambda n, r: (lambda d=_text(n, r): hashlib.sha512(d).digest()),
        "blake2b": lambda n, r: (lambda d=_text(n, r): hashlib.blake2b(d).digest()),
        "sha3_256": lambda n, r: (lambda d=_text(n, r): hashlib.sha3_256(d).digest()),
        "crc32": lambda n, r: (lambda d=_text(n, r): zlib.crc32(d)),
        "adler32": lambda n, r: (lambda d=_text(n, r): zlib.adler32(d)),
    }),
    "sparse": ("n", tuple(2 ** k for k in range(10, 18)), {
        "transpose": lambda n, r: (lambda a=_poisson(n).tocsr(): a.T.tocsr()),
        "add": lambda n, r: (lambda a=_poisson(n).tocsr(), b=_poisson(n).tocsr() * 2.0: a + b),
        "to_csc": lambda n, r: (lambda a=_poisson(n).tocsr(): a.tocsc()),
        "matmat": lambda n, r: (lambda a=_poisson(n).tocsr(): a @ a),
        "norm": lambda n, r: (lambda a=_poisson(n).tocsr(): scipy.sparse.linalg.norm(a)),
        "kron": lambda n, r: (lambda a=_poisson(n // 16).tocsr(), b=scipy.sparse.identity(16, format="csr"):
                              scipy.sparse.kron(a, b)),
    }),
    "filters": ("side", (128, 181, 256, 362, 512, 724, 1024, 1448), {
        "sharpen": lambda m, r: (lambda img=_image(m, r): img.filter(ImageFilter.SHARPEN)),
        "find_edges": lambda m, r: (lambda img=_image(m, r): img.filter(ImageFilter.FIND_EDGES)),
        "median_filter": lambda m, r: (lambda img=_image(m, r): img.filter(ImageFilter.MedianFilter(3))),
        "equalize": lambda m, r: (lambda img=_image(m, r): ImageOps.equalize(img)),
        "quantize": lambda m, r: (lambda img=_image(m, r): img.quantize(64)),
        "transpose": lambda m, r: (lambda img=_image(m, r): img.transpose(Image.Transpose.ROTATE_90)),
    }),
    "regex": ("bytes", tuple(2 ** k for k in range(14, 22)), {
        "sub": lambda n, r: (lambda t=_text(n, r).decode(): re.sub(r"[aeiou]+", "_", t)),
        "split": lambda n, r: (lambda t=_text(n, r).decode(): re.split(r"\s+", t)),
        "search_absent": lambda n, r: (lambda t=_text(n, r).decode(): re.search(r"qqq\d", t)),
        "finditer_groups": lambda n, r: (lambda t=_text(n, r).decode():
                                         [m.group(1) for m in re.finditer(r"(\w)(\w)\2", t)]),
        "count": lambda n, r: (lambda t=_text(n, r).decode(): t.count("ab")),
        "casefold": lambda n, r: (lambda t=_text(n, r).decode(): t.casefold()),
    }),
    "numerics": ("n", tuple(2 ** k for k in range(12, 20)), {
        "polyfit": lambda n, r: (lambda x=np.linspace(0, 1, n), y=r.random(n): np.polyfit(x, y, 3)),
        "interp": lambda n, r: (lambda x=np.sort(r.random(n)), xp=np.linspace(0, 1, 1000), fp=r.random(1000):
                                np.interp(x, xp, fp)),
        "gradient": lambda n, r: (lambda a=r.random(n): np.gradient(a)),
        "lstsq": lambda n, r: (lambda a=r.random((n, 8)), b=r.random(n): np.linalg.lstsq(a, b, rcond=None)),
        "cumulative_trapezoid": lambda n, r: (lambda y=r.random(n): scipy.integrate.cumulative_trapezoid(y)),
        "gammaln": lambda n, r: (lambda a=r.random(n) * 100: scipy.special.gammaln(a)),
        "searchsorted_sorted": lambda n, r: (lambda a=np.arange(n, dtype=float), q=np.sort(r.random(n) * n):
                                             np.searchsorted(a, q)),
    }),
    "stats": ("n", tuple(2 ** k for k in range(10, 18)), {
        "kendalltau": lambda n, r: (lambda a=r.random(n), b=r.random(n): scipy.stats.kendalltau(a, b)),
        "spearmanr": lambda n, r: (lambda a=r.random(n), b=r.random(n): scipy.stats.spearmanr(a, b)),
        "mannwhitneyu": lambda n, r: (lambda a=r.random(n), b=r.random(n): scipy.stats.mannwhitneyu(a, b)),
        "ks_2samp": lambda n, r: (lambda a=r.random(n), b=r.random(n): scipy.stats.ks_2samp(a, b)),
        "kde": lambda n, r: (lambda a=r.normal(size=n), q=np.linspace(-3, 3, 64):
                             scipy.stats.gaussian_kde(a)(q)),
        "mode": lambda n, r: (lambda a=r.integers(0, 1000, n): scipy.stats.mode(a)),
        "describe": lambda n, r: (lambda a=r.random(n): scipy.stats.describe(a)),
    }),
    "graphs": ("n", tuple(2 ** k for k in range(10, 18)), {
        "dijkstra": lambda n, r: (lambda g=_graph(n, r): scipy.sparse.csgraph.dijkstra(g, indices=0)),
        "components": lambda n, r: (lambda g=_graph(n, r): scipy.sparse.csgraph.connected_components(g)),
        "spanning_tree": lambda n, r: (lambda g=_graph(n, r): scipy.sparse.csgraph.minimum_spanning_tree(g)),
        "bfs": lambda n, r: (lambda g=_graph(n, r): scipy.sparse.csgraph.breadth_first_order(g, 0)),
        "dfs": lambda n, r: (lambda g=_graph(n, r): scipy.sparse.csgraph.depth_first_order(g, 0)),
        "laplacian": lambda n, r: (lambda g=_graph(n, r): scipy.sparse.csgraph.laplacian(g)),
        "cuthill_mckee": lambda n, r: (lambda g=_graph(n, r): scipy.sparse.csgraph.reverse_cuthill_mckee(g)),
    }),
    "containers": ("items", tuple(2 ** k for k in range(11, 19)), {
        "set_intersection": lambda n, r: (lambda a=set(r.integers(0, 2 * n, n).tolist()),
                                          b=set(r.integers(0, 2 * n, n).tolist()): a & b),
        "deque_window": _deque_pass,
        "sorted_tuples": lambda n, r: (lambda t=list(zip(r.integers(0, 100, n).tolist(), r.random(n).tolist())):
                                       sorted(t, key=operator.itemgetter(1))),
        "dict_merge": lambda n, r: (lambda a=dict.fromkeys(r.integers(0, 4 * n, n).tolist(), 1),
                                    b=dict.fromkeys(r.integers(0, 4 * n, n).tolist(), 2): a | b),
        "most_common": lambda n, r: (lambda t=r.integers(0, n // 4 + 1, n).tolist():
                                     collections.Counter(t).most_common(10)),
        "nlargest": lambda n, r: (lambda t=r.random(n).tolist(): heapq.nlargest(10, t)),
        "list_reverse_copy": lambda n, r: (lambda t=r.random(n).tolist(): t[::-1]),
    }),
    "compress": ("bytes", tuple(2 ** k for k in range(14, 22)), {
        "gzip1": lambda n, r: (lambda t=_text(n, r): gzip.compress(t, compresslevel=1)),
        "zlib9": lambda n, r: (lambda t=_text(n, r): zlib.compress(t, 9)),
        "lzma6": lambda n, r: (lambda t=_text(n, r): lzma.compress(t, preset=6)),
        "bz2_1": lambda n, r: (lambda t=_text(n, r): bz2.compress(t, 1)),
        "b85encode": lambda n, r: (lambda t=_text(n, r): base64.b85encode(t)),
        "crc_hqx": lambda n, r: (lambda t=_text(n, r): binascii.crc_hqx(t, 0)),
    }),
    "formats": ("items", tuple(2 ** k for k in range(10, 18)), {
        "strptime": lambda n, r: (lambda t=_dates(n, r):
                                  [datetime.datetime.strptime(v, "%Y-%m-%d %H:%M:%S") for v in t]),
        "isoparse": lambda n, r: (lambda t=_dates(n, r): [datetime.datetime.fromisoformat(v) for v in t]),
        "parse_float": lambda n, r: (lambda t=[repr(v) for v in r.random(n).tolist()]: [float(v) for v in t]),
        "parse_hex": lambda n, r: (lambda t=[hex(v) for v in r.integers(0, 1 << 40, n).tolist()]:
                                   [int(v, 16) for v in t]),
        "format_exp": lambda n, r: (lambda t=r.random(n).tolist(): [f"{v:.3e}" for v in t]),
        "ip_address": lambda n, r: (lambda t=[str(ipaddress.IPv4Address(int(v))) for v in r.integers(0, 1 << 32, n)]:
                                    [ipaddress.ip_address(v) for v in t]),
        "uuid_parse": lambda n, r: (lambda t=[str(uuid.UUID(int=int(v))) for v in r.integers(0, 1 << 62, n)]:
                                    [uuid.UUID(v) for v in t]),
    }),
    "plotting": ("points", tuple(2 ** k for k in range(10, 18)), {
        "line_png": _plot("line"),
        "scatter_png": _plot("scatter"),
    }),
}


def measure(name: str, reps: int, progress: Progress) -> Experiment:
    """Time every routine of a set at every size, ``reps`` runs on fresh input each."""
    param, sizes, routines = SETS[name]
    task = progress.add_task(name, total=len(sizes) * len(routines) * reps)
    series = []
    for k, (routine, make) in enumerate(routines.items()):
        points = []
        for size in sizes:
            values = []
            for rep in range(reps):
                work = make(size, np.random.default_rng([k, size, rep]))
                start = time.perf_counter()
                work()
                values.append(time.perf_counter() - start)
                progress.advance(task)
            points.append(Point((float(size),), tuple(values)))
        series.append(Series("time", tuple(points), routine, "s"))
    return Experiment((param,), tuple(series), source=f"measure_libraries.py {name}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default=",".join(SETS), help="comma-separated sets")
    ap.add_argument("--reps", type=int, default=5, help="runs a size")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "data" / "measured")
    ap.add_argument("--force", action="store_true", help="measure sets already written again")
    args = ap.parse_args()
    console = Console()
    args.out.mkdir(parents=True, exist_ok=True)
    with Progress(console=console) as progress:
        for name in args.sets.split(","):
            if name not in SETS:
                raise SystemExit(f"unknown set {name!r}; choose from {', '.join(SETS)}")
            path = args.out / f"{name}.txt"
            if path.exists() and not args.force:
                console.print(f"{name}: kept {path}")
                continue
            load_start = os.getloadavg()[0]
            experiment = measure(name, args.reps, progress)
            save(experiment, path, "extrap-text")
            console.print(f"{name}: wrote {path} ({args.reps} runs a size, load {load_start:.1f} at start, "
                          f"{os.getloadavg()[0]:.1f} at end)")


if __name__ == "__main__":
    main()
