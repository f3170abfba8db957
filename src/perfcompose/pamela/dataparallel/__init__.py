"""Data-parallel Python programs (paper 004, section 3): the runtime that runs them, the Modeling
Engine that writes their PAMELA models, the machine model and its calibration, and the case
studies. A program takes its layouts from here (``from perfcompose.pamela.dataparallel import block``).
"""
from typing import TYPE_CHECKING

from perfcompose.lazy_names import lazy_exports

if TYPE_CHECKING:
    from perfcompose.pamela.dataparallel.runtime import (
        Layout,
        Machine,
        RunError,
        block,
        cyclic,
        load_program,
        local,
        owned,
        owner,
        replicated,
        run,
        run_alternatives,
        run_lines,
    )

__getattr__, __dir__, __all__ = lazy_exports(globals())
