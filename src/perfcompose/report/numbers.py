"""Numbers and models as people read them: significant digits, sizes as integers."""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import sympy as sp

from perfcompose.model import Model


def sig(v: float | None, digits: int = 4) -> str:
    """``v`` to ``digits`` significant digits, positional between 1e-4 and 1e9, else scientific.

    >>> sig(1234.5678), sig(0.000123456), sig(3.0), sig(2.5e11)
    ('1235', '0.0001235', '3', '2.500e+11')
    """
    if v is None:
        return "-"
    v = float(v)
    if v != v:
        return "n/a"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == 0:
        return "0"
    mag = math.floor(math.log10(abs(v)))
    if not -4 <= mag < 9:
        return f"{v:.{digits - 1}e}"
    decimals = digits - 1 - mag
    if decimals <= 0:
        return str(int(round(v, decimals)))
    text = f"{round(v, decimals):.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


_QUALITY = (("smape", "SMAPE {} %"), ("adj_r2", "adj. R² {}"), ("cv_error", "leave-one-out {} %"))


def fit_quality(stats: Mapping[str, Any], nan: bool = True) -> str:
    """SMAPE, adjusted R² and leave-one-out error of a fit in words, '-' where it has none;
    ``nan=False`` leaves out statistics that are NaN too."""
    return ", ".join(text.format(f"{v:.4f}" if key == "adj_r2" else sig(v, 3)) for key, text in _QUALITY
                     if (v := stats.get(key)) is not None and (nan or v == v)) or "-"


def size(v: float) -> str:
    """A parameter value such as x or n: an integer as an integer (1048576, never 1.04858e+06).

    >>> size(1048576.0), size(2.5), size(4)
    ('1048576', '2.5', '4')
    """
    v = float(v)
    if v == v and not math.isinf(v) and v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return sig(v, 6)


def point(values: dict[str, float]) -> str:
    """``x=1024, n=4``."""
    return ", ".join(f"{k}={size(v)}" for k, v in values.items())


def short_model(model: Any, digits: int = 4) -> str:
    """A model's text with its coefficients rounded to ``digits`` significant digits."""
    def rounded(f: Any) -> Any:
        v = float(f"{float(f):.{digits}g}")
        return sp.Integer(int(v)) if v == int(v) and abs(v) < 1e15 else sp.Float(v)

    floats = {f: rounded(f) for f in model.expr.atoms(sp.Float)}
    try:
        return str(Model(model.expr.xreplace(floats)))
    except Exception:  # a numeric model whose functions do not survive rebuilding prints as it is
        return str(model)
