"""Values computed from the P-chain's rows, kept per key for as long as the key's P-chain head
is the same: the Metrics API's staking timelines and L1 fee replays, listValidators'
delegation capacities and active stake.

Stage: api. Every row these read changes only with a newer P-chain block, so a key carries the
head it was computed at, and a page-through or repeated request reads the rows once per new P
block and process. A few keys at most (cleared past the limit).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import NamedTuple, TypeVar

T = TypeVar("T")


class DerivedCache:
    """A small map of computed values, shared by the requests of one app."""

    _LIMIT = 32

    def __init__(self) -> None:
        self._items: dict[tuple[object, ...], object] = {}
        self._lock = threading.Lock()

    def get(self, key: tuple[object, ...], make: Callable[[], T]) -> T:
        with self._lock:
            hit = self._items.get(key)
        if hit is not None:
            return hit  # type: ignore[return-value]
        value = make()
        with self._lock:
            if len(self._items) >= self._LIMIT:
                self._items.clear()
            self._items[key] = value
        return value


class Kept(NamedTuple):
    """A cache seen at one P-chain head: (the P cursor, its newest time)."""

    cache: DerivedCache
    head: tuple[object, ...]

    def get(self, name: tuple[object, ...] | str, make: Callable[[], T]) -> T:
        parts = (name,) if isinstance(name, str) else name
        return self.cache.get((*parts, *self.head), make)
