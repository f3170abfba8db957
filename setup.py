"""The compiled parts of perfcompose: C extensions built when a C compiler and the Python headers
are there (Debian: gcc, python3-dev). Each is optional: without a compiler the install still
succeeds and the package runs the same kernels compiled by Numba instead. Everything else about
the package is in pyproject.toml."""
from setuptools import Extension, setup

_FLAGS = ["-O2", "-std=c99"]
_BUFFERS = "src/perfcompose/loggp/_buffers.h"  # array arguments and module definitions, shared by the LogGP extensions
# libstdc++'s std::sort of ids by a small key, and a binary heap's moves: templates both loops include
_LOOPS = [_BUFFERS, "src/perfcompose/loggp/_cxx_sort.h", "src/perfcompose/loggp/_heap_sift.h"]

EXTENSIONS = [
    # LogGP's step simulators (paper 002: Figure 2 and section 4.2)
    Extension("perfcompose.loggp._cstep", ["src/perfcompose/loggp/_cstep.c"], depends=_LOOPS,
              extra_compile_args=_FLAGS, optional=True),
    # LogGOPSim's main loop on GOAL schedules (loggopsim.py)
    Extension("perfcompose.loggp._cgoal", ["src/perfcompose/loggp/_cgoal.c"], depends=_LOOPS,
              extra_compile_args=_FLAGS, optional=True),
    # GOAL text read line by line (goal_compiled.py)
    Extension("perfcompose.loggp._cgoal_text", ["src/perfcompose/loggp/_cgoal_text.c"], depends=[_BUFFERS],
              extra_compile_args=_FLAGS, optional=True),
    # the number arrays of JSON programs tokenized (json_arrays.py)
    Extension("perfcompose.loggp._cjson_tokens", ["src/perfcompose/loggp/_cjson_tokens.c"], depends=[_BUFFERS],
              extra_compile_args=_FLAGS, optional=True),
    # a JSON step's message rows checked and split into columns (program_buffers.py)
    Extension("perfcompose.loggp._cmessage_rows", ["src/perfcompose/loggp/_cmessage_rows.c"], depends=[_BUFFERS],
              extra_compile_args=_FLAGS, optional=True),
]

setup(ext_modules=EXTENSIONS)
