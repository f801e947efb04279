"""How fast messages may leave while the indexer backfills.

Stage: delivery; pure (a clock and asyncio's sleep). Why: a thousand webhooks' deliveries can
cost the indexer a quarter of its ingest rate during a backfill even below its CPU priority
(docs/benchmarks.md): the store's write lock and the cores are shared. A backfill is when an
indexed head moves faster than a live chain does; meanwhile at most `rate` messages a second
leave (every message still leaves, in order, only later), then the worker runs unpaced.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping

# An indexed head moving faster than this (blocks a second) is a backfill, not a live chain.
BACKFILL_BLOCKS_PER_S = 100.0
# Paced this long after the last such move (a backfill commits in chunks: a reading between
# two commits sees no move).
HOLD_S = 2.0


class Pacer:
    def __init__(self, rate: float) -> None:
        """`rate`: messages a second while a backfill runs; 0: never paced."""
        self.rate = rate
        self.on = False
        self._next = 0.0
        self._until = 0.0
        self._seen: tuple[float, Mapping[int | str, int]] | None = None

    def heads(self, heads: Mapping[int | str, int], now: float | None = None) -> None:
        """The chains' indexed heads as just read: paced while any moved like a backfill since
        the last reading."""
        now = time.monotonic() if now is None else now
        if self._seen is not None and self.rate > 0:
            then, before = self._seen
            moved = max((h - before.get(c, h) for c, h in heads.items()), default=0)
            if moved > BACKFILL_BLOCKS_PER_S * max(now - then, 1e-3):
                self._until = now + HOLD_S
        self.on = now < self._until
        if not self.on:
            self._next = 0.0
        self._seen = (now, dict(heads))

    async def wait(self) -> None:
        """Before a message leaves: while paced, wait for its turn (one every 1/rate s)."""
        if not self.on:
            return
        now = time.monotonic()
        turn = max(now, self._next)
        self._next = turn + 1.0 / self.rate
        if turn > now:
            await asyncio.sleep(turn - now)
