"""Sync read code run on the event loop, waiting for PostgreSQL there (docs/api.md, "Where a
route body runs").

Stage: store; the API runs its store-bound route bodies through it. A body is sync code (the
store's queries are); `LoopReaders.run` starts it in a greenlet (SQLAlchemy's
`greenlet_spawn`) on a connection of an async engine, so each statement's wait for the server
suspends the body and hands the loop to the other requests. Reader threads did the same with a
thread per body: each request then cost two thread wake-ups and GIL hand-offs, and the API
process spent about half its CPU in the kernel switching threads. The body sees its connection
through `lent()` (the API's LoopConnection.connect returns it); a nested use within the body
opens one of its own from the same engine.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.util import greenlet_spawn

from avadata.store.dialect import connection_lost, is_driver_error
from avadata.store.engine import make_async_reader_engine
from avadata.store.types import Connection

R = TypeVar("R")

# A connection idle this long goes back to the pool, whose checkout pings a connection idle
# for longer than store/dialect.py's _PING_AFTER_IDLE_S (as ReaderThreads' _KEEP_IDLE_S).
KEEP_IDLE_S = 1.0


@dataclass(slots=True)
class _Lent:
    conn: Connection
    engine: AsyncEngine
    busy: bool = False


_LENT: contextvars.ContextVar[_Lent | None] = contextvars.ContextVar("avadata_lent", default=None)


@contextmanager
def lent() -> Iterator[Connection | None]:
    """The connection of the greenlet-run body this is called from (None elsewhere); a nested
    use gets a connection of its own from the body's engine."""
    lease = _LENT.get()
    if lease is None:
        yield None
        return
    if lease.busy:
        with lease.engine.sync_engine.connect() as own:
            yield own
        return
    lease.busy = True
    try:
        yield lease.conn
    finally:
        lease.busy = False


@dataclass(slots=True)
class _OnLoop:
    """What belongs to one event loop: an async engine's connections and futures are bound to
    the loop they were made on (a test client starts a loop per client)."""

    loop: asyncio.AbstractEventLoop
    engine: AsyncEngine
    slots: asyncio.Semaphore
    idle: list[tuple[Connection, float]] = field(default_factory=list)


class LoopReaders:
    """At most `count` bodies at once (the pool's size, as ReaderThreads), each on a connection
    kept between bodies while the API is busy; each body's turn ends with a rollback, so a
    request reads what was committed before it."""

    def __init__(self, url: str, count: int) -> None:
        self._url = url
        self._count = count
        self._on: _OnLoop | None = None

    async def run(self, func: Callable[[], R]) -> R:
        on = await self._bound()
        async with on.slots:
            return await greenlet_spawn(self._body, on, func)

    async def _bound(self) -> _OnLoop:
        loop = asyncio.get_running_loop()
        old = self._on
        if old is not None and old.loop is loop:
            return old
        # The new one first: a request arriving while the old one closes uses it.
        on = self._on = _OnLoop(
            loop, make_async_reader_engine(self._url), asyncio.Semaphore(self._count)
        )
        if old is not None:
            await self._drop(old)
        return on

    def _body(self, on: _OnLoop, func: Callable[[], R]) -> R:
        conn, kept = self._checkout(on)
        lost = [False]
        try:
            return self._run_on(on, conn, func, lost)
        except Exception:
            if not (kept and lost[0]):
                raise
        # A connection kept from an earlier body was closed by the server meanwhile (a restart,
        # an idle timeout): the body only reads, so it runs once more on a new connection.
        return self._run_on(on, on.engine.sync_engine.connect(), func, [False])

    def _run_on(self, on: _OnLoop, conn: Connection, func: Callable[[], R], lost: list[bool]) -> R:
        token = _LENT.set(_Lent(conn, on.engine))
        keep = False
        try:
            result = func()
            keep = True
            return result
        except Exception as exc:
            # An HTTP error leaves the connection fine; a driver's error may not (a server
            # gone, a statement cut off): that connection is not handed out again.
            keep = not is_driver_error(exc)
            lost[0] = not keep and connection_lost(conn)
            raise
        finally:
            _LENT.reset(token)
            self._checkin(on, conn, keep)

    def _checkout(self, on: _OnLoop) -> tuple[Connection, bool]:
        """A connection, and whether it was kept from an earlier body."""
        idle, now = on.idle, time.monotonic()
        while idle and now - idle[0][1] > KEEP_IDLE_S:
            idle.pop(0)[0].close()
        if idle:
            return idle.pop()[0], True
        return on.engine.sync_engine.connect(), False

    @staticmethod
    def _checkin(on: _OnLoop, conn: Connection, keep: bool) -> None:
        if keep:
            try:
                conn.rollback()
            except Exception:
                keep = False
        if keep:
            on.idle.append((conn, time.monotonic()))
            return
        conn.invalidate()
        conn.close()

    def open_count(self) -> int:
        """How many connections are kept between bodies now."""
        return 0 if self._on is None else len(self._on.idle)

    async def stop(self) -> None:
        """Every kept connection closed and the engine disposed (at shutdown, on its loop)."""
        on, self._on = self._on, None
        if on is not None:
            await self._drop(on)

    @staticmethod
    async def _drop(on: _OnLoop) -> None:
        idle, on.idle = on.idle, []
        for conn, _ in idle:
            await greenlet_spawn(conn.close)
        await on.engine.dispose()
