"""perfcompose._jit: Numba's njit where Numba is installed, and where it is not, the functions
left as they are (both ways of writing the decorator)."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from perfcompose import _jit

WITHOUT_NUMBA = "import sys\nsys.modules['numba'] = None\nsys.modules['llvmlite'] = None\n"


def test_without_numba_the_decorator_returns_the_function_itself():
    code = WITHOUT_NUMBA + (
        "import numpy as np\n"
        "from perfcompose import _jit\n"
        "def twice(x):\n    return 2 * x\n"
        "assert not _jit.HAVE_NUMBA\n"
        "assert _jit.njit(twice) is twice\n"
        "assert _jit.njit(cache=True, inline='always')(twice) is twice\n"
        "assert _jit.njit(nogil=True)(twice)(21) == 42\n"
        "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_with_numba_the_decorator_compiles():
    pytest.importorskip("numba")
    assert _jit.HAVE_NUMBA

    @_jit.njit(cache=False)
    def add_one(a, i):
        return a[i] + 1.0

    assert add_one(np.arange(4.0), 2) == 3.0
    assert hasattr(add_one, "py_func")  # a Numba dispatcher, not the function
