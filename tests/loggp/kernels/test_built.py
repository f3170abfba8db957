"""Every C extension of the LogGP kernels is built where a C compiler was there at install time.
The build of each is optional (without a compiler the package runs the Python references), so a
source that no longer compiles would pass unnoticed: with ``PERFCOMPOSE_REQUIRE_KERNELS=1`` (as
CI sets it) a missing extension fails here instead of being skipped."""
from __future__ import annotations

import importlib
import os

import pytest

EXTENSIONS = ("_cstep", "_cgoal", "_cgoal_text", "_cjson_tokens", "_cmessage_rows")


@pytest.mark.parametrize("name", EXTENSIONS)
def test_the_extension_is_built(name):
    try:
        module = importlib.import_module(f"perfcompose.loggp.kernels.{name}")
    except ImportError as e:
        if os.environ.get("PERFCOMPOSE_REQUIRE_KERNELS") == "1":
            raise AssertionError(f"{name} was not built: {e}") from e
        pytest.skip(f"{name} is not built (no C compiler at install time)")
    assert callable(next(getattr(module, f) for f in dir(module) if not f.startswith("_")))
