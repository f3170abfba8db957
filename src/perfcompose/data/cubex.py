"""One CUBE4 profile (``.cubex``) read with pycubexr (the ``cube`` extra, imported only by
:mod:`perfcompose.data.cube` once it is known to be installed)."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from pycubexr import CubexParser
from pycubexr.utils.exceptions import MissingMetricError

from perfcompose.errors import DataFormatError


def summed_metrics(path: Path) -> tuple[str, ...]:
    """The metrics of the profile at ``path`` that add up over the call tree (not minima or maxima)
    and hold data."""
    try:
        with CubexParser(str(path)) as profile:
            names = []
            for m in profile.get_metrics():
                if str(m.data_type).upper().startswith(("MIN", "MAX")):
                    continue
                try:
                    profile.get_metric_values(m, cache=False)
                except MissingMetricError:
                    continue
                names.append(m.name)
            return tuple(names)
    except Exception as exc:  # noqa: BLE001 - any failure of the parser means a file it cannot read
        raise DataFormatError(f"not a readable CUBE profile ({type(exc).__name__}: {exc})", path=path) from None


def profile_values(path: Path, metric: str, inclusive: bool) -> tuple[str, list[tuple[str, np.ndarray]]]:
    """The unit of ``metric`` and ``(call path, per-location values)`` of each call path with data."""
    try:
        with CubexParser(str(path)) as profile:
            chosen = _metric(profile, metric, path)
            try:
                values = profile.get_metric_values(chosen, cache=False)
            except MissingMetricError:
                raise DataFormatError(f"the profile has no data for metric {metric!r}", path=path) from None
            out = [(callpath, values.cnode_values(cnode, convert_to_exclusive=not inclusive,
                                                  convert_to_inclusive=inclusive))
                   for cnode, callpath in _callpaths(profile.get_root_cnodes()) if cnode.id in values.cnode_indices]
    except DataFormatError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure of the parser means a file it cannot read
        raise DataFormatError(f"not a readable CUBE profile ({type(exc).__name__}: {exc})",
                              path=path) from None
    return str(chosen.units or ""), out


def _metric(profile: Any, name: str, path: Path) -> Any:
    try:
        return profile.get_metric_by_name(name)
    except KeyError:
        have = ", ".join(m.name for m in profile.all_metrics())
        raise DataFormatError(f"no metric {name!r} in this profile", path=path,
                              hint=f"it has: {have}") from None


def _callpaths(roots: list[Any]) -> Iterator[tuple[Any, str]]:
    """Every call-tree node with its call path, ``main->solve->mpi_send`` as Extra-P names them."""
    stack = [(root, root.region.name) for root in reversed(roots)]
    while stack:
        cnode, name = stack.pop()
        yield cnode, name
        stack.extend((child, f"{name}->{child.region.name}") for child in reversed(cnode.get_children()))
