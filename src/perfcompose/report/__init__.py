"""Plots and reports of measurements and models."""
from perfcompose.report.plots import plot_fits, plot_models

__all__ = ["plot_fits", "plot_models"]
