"""CUBE4 ``.cubex`` files for the tests that read them: a tar of ``anchor.xml`` and, per metric,
an index of call-tree nodes and their values by location."""
from __future__ import annotations

import io
import struct
import tarfile
from collections.abc import Mapping
from pathlib import Path

import numpy as np


def dense_metric(values: np.ndarray, dtype: str) -> tuple[bytes, bytes]:
    """The index (every call-tree node, dense) and data (node-major, then location) of a metric
    whose ``values`` hold a row per node."""
    n = len(values)
    index = b"CUBEX.INDEX" + struct.pack("<ihbi", 1, 0, 1, n) + struct.pack(f"<{n}i", *range(n))
    return index, b"CUBEX.DATA" + np.asarray(values, dtype=dtype).tobytes()


def write_cubex(path: Path, members: Mapping[str, bytes]) -> Path:
    """Write the tar ``path`` (its folder made) of ``members``, name -> bytes, in their order."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path
