"""The compiled parts of perfcompose: C extensions built when a C compiler and the Python headers
are there (Debian: gcc, python3-dev). Each is optional: without a compiler the install still
succeeds and the package runs the plain-Python reference of each kernel instead (the same results,
100 to 1,000 times slower). Everything else about the package is in pyproject.toml."""
from setuptools import Extension, setup

_FLAGS = ["-O2", "-std=c99"]
_KERNELS = "src/perfcompose/loggp/kernels/"
_BUFFERS = _KERNELS + "_buffers.h"  # array arguments and module definitions, shared by the LogGP extensions
# libstdc++'s std::sort of ids by a small key, and a binary heap's moves: templates both loops include
_LOOPS = [_BUFFERS, _KERNELS + "_cxx_sort.h", _KERNELS + "_heap_sift.h"]


def _kernel(name: str, depends: list[str]) -> Extension:
    """The extension perfcompose.loggp.kernels.<name>, from kernels/<name>.c; optional, as all are."""
    return Extension(f"perfcompose.loggp.kernels.{name}", [f"{_KERNELS}{name}.c"], depends=depends,
                     extra_compile_args=_FLAGS, optional=True)


EXTENSIONS = [
    _kernel("_cstep", _LOOPS),  # LogGP's step simulators (paper 002: Figure 2 and section 4.2)
    # LogGOPSim's main loop on GOAL schedules (goal/loggopsim.py), its operations ordered by place
    _kernel("_cgoal", [*_LOOPS, _KERNELS + "_goal_layout.h"]),
    _kernel("_cgoal_text", [_BUFFERS]),  # GOAL text read line by line (goal/goal_compiled.py)
    _kernel("_cjson_tokens", [_BUFFERS]),  # the number arrays of JSON programs tokenized (steps/json_arrays.py)
    _kernel("_cmessage_rows", [_BUFFERS]),  # a JSON step's message rows split into columns (steps/program_buffers.py)
]

setup(ext_modules=EXTENSIONS)
