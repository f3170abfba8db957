"""Plots, tables and pages of perfcompose's results: each module renders one kind of result, and
Matplotlib is loaded only by the modules that draw, so that the command line's tables
(``perfcompose.report.tables``) do not load it."""
