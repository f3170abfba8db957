"""Plots and reports of measurements and models.

The plotting functions are imported on first use, so that the command line's number formatting
(``perfcompose.report.numbers``) does not load Matplotlib or SymPy.
"""
from typing import TYPE_CHECKING, Any

__all__ = ["plot_fits", "plot_models"]

if TYPE_CHECKING:
    from perfcompose.report.plots import plot_fits, plot_models


def __getattr__(name: str) -> Any:
    """Import the plotting functions from perfcompose.report.plots when first asked for."""
    if name in __all__:
        from perfcompose.report import plots

        return getattr(plots, name)
    raise AttributeError(f"module 'perfcompose.report' has no attribute {name!r}")
