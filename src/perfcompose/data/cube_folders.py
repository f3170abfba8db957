"""Parameter values from the names of Score-P experiment folders, as Extra-P reads them:
``mm.x25y10z1.r2`` is x=25, y=10, z=1 (a prefix before the first ``.``, ``.r<k>`` the
repetition, then names and numbers; a comma may be the decimal mark). Parameters with one value
in every folder are dropped: nothing can be fitted in them."""
from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from perfcompose.errors import DataFormatError

_REPETITION = re.compile(r"\.r\d+$")
_NUMBER = re.compile(r"([0-9.,]+)")
_HINT = "name each folder PREFIX.NAME1VALUE1NAME2VALUE2[.rK], e.g. mm.x25y10.r1"


def folder_parameters(folder: Path) -> list[tuple[str, float]]:
    """The ``(name, value)`` pairs a folder's name encodes, in order."""
    name = _REPETITION.sub("", folder.name)
    body = name.split(".", 1)[1] if "." in name else name
    parts = [p for p in _NUMBER.split(body) if p]  # only the ends can be empty: a number's run is maximal
    if len(parts) < 2 or len(parts) % 2:
        raise DataFormatError(f"cannot read parameter values from the folder name {folder.name!r}",
                              path=folder, hint=_HINT)
    pairs = []
    for label, number in zip(parts[0::2], parts[1::2]):
        try:
            value = float(number.replace(",", ".").rstrip("."))
        except ValueError:
            raise DataFormatError(f"{number!r} in the folder name {folder.name!r} is not a number",
                                  path=folder, hint=_HINT) from None
        if not label.isidentifier() or label.startswith("_"):
            raise DataFormatError(f"{label!r} in the folder name {folder.name!r} is not a parameter name",
                                  path=folder, hint=_HINT)
        pairs.append((label, value))
    return pairs


def parameters(folders: Sequence[Path]) -> tuple[tuple[str, ...], list[tuple[float, ...]]]:
    """The varying parameters of a set of folders and each folder's coordinate in them."""
    pairs = [folder_parameters(f) for f in folders]
    names = [n for n, _ in pairs[0]]
    for folder, found in zip(folders[1:], pairs[1:]):
        if [n for n, _ in found] != names:
            raise DataFormatError(f"the folder names parameters {[n for n, _ in found]}, but "
                                  f"{folders[0].name} names {names}", path=folder,
                                  hint="every folder must name the same parameters in the same order")
    varying = [k for k in range(len(names)) if len({p[k][1] for p in pairs}) > 1]
    if not varying:
        raise DataFormatError(f"no parameter varies between the {len(folders)} experiment folder(s) "
                              f"({', '.join(sorted(f.name for f in folders))})", path=folders[0].parent,
                              hint=_HINT)
    return tuple(names[k] for k in varying), [tuple(p[k][1] for k in varying) for p in pairs]
