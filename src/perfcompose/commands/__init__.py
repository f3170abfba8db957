"""Subcommand groups of the ``perfcompose`` command, one module per subsystem.

:mod:`perfcompose.cli` registers each module's ``app``; :mod:`.common` holds what they share
(consoles, the error wrapper that turns a PerfcomposeError into exit status 2, progress bars).
"""
