"""A sequence whose items are read only when first asked for: the columns of a schedule that only an error message or a
report reads (its operations' labels and lines), kept out of memory and off the reading time until then."""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar, overload

__all__ = ["LazySequence"]

T = TypeVar("T")


class LazySequence(Sequence[T]):
    """``n`` items, given by ``read()`` when first asked for (``_load`` turns what it gives into
    the items); e.g. ``LazySequence(lambda: (1, 2), 2)[1] == 2``."""

    def __init__(self, read: Callable[[], Any], n: int) -> None:
        self._read, self._n = read, n
        self._items: Any = None

    def _load(self) -> Any:
        """The items from what ``read()`` gives."""
        return self._read()

    def _all(self) -> Any:
        if self._items is None:
            self._items = self._load()
        return self._items

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> T: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[T]: ...

    def __getitem__(self, i: Any) -> Any:
        return self._all()[i]

    def __iter__(self) -> Iterator[T]:
        return iter(self._all())
