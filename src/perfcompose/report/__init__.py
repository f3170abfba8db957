"""Plots and reports of measurements and models.

The plotting functions are imported on first use, so that the command line's tables
(``perfcompose.report.tables``) do not load Matplotlib or SymPy.

>>> from perfcompose.report import plot_models
>>> # plot_models([("inc", Model.parse("536.185*x", unit="ns"))], (1024, 65536), "inc.png")
"""
from typing import TYPE_CHECKING

from perfcompose.lazy_names import lazy_exports

if TYPE_CHECKING:
    from perfcompose.report.plots import plot_models

__getattr__, __dir__, __all__ = lazy_exports(globals())
