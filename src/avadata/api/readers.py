"""Where a store-bound route body runs and on which connection (docs/api.md, "Why Data API
routes run on the event loop on SQLite").

Stage: api. `LoopConnection`: the connection a thread keeps while it runs route bodies (the
event loop's, on SQLite; each reader thread's, on PostgreSQL). `ReaderThreads`: the threads
that run the bodies on PostgreSQL, fed by a queue, each on a connection it keeps while it is
busy. Both replace a per-request cost that was larger than a keyset page: a worker-thread hop
through anyio (its capacity limiter, cancel scope, a Condition per job) and a connection
checked out of the pool and back in.
"""

from __future__ import annotations

import asyncio
import contextvars
import queue
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from avadata.store.loop_readers import lent
from avadata.store.types import Connection, Engine

R = TypeVar("R")

# A reader thread idle this long hands its connection back to the pool, so that a connection
# idle for longer is pinged at its next checkout as the pool's own (store/dialect.py
# _PING_AFTER_IDLE_S) rather than kept unchecked by the thread.
_KEEP_IDLE_S = 1.0


class LoopConnection:
    """The connection each owning thread keeps for the route bodies it runs, one body at a
    time: checking a connection out of the pool and back in cost about 35 us a request, a
    tenth of a whole block's page. The event loop owns its connection while it runs a body
    inline (`running_inline`, SQLite), a reader thread for as long as it is busy (`kept`).
    Each body's turn ends with a rollback, so every request still reads in a read transaction
    of its own (on PostgreSQL's autocommit readers, each statement in a snapshot of its own)
    and sees what was committed before it. Any other use (another thread, a nested use) checks
    out a connection of its own, as before."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._local = threading.local()
        self._lock = threading.Lock()
        self._kept: set[Connection] = set()

    @contextmanager
    def running_inline(self) -> Iterator[None]:
        """Around an on_store body run on the event loop: its connections may be this one."""
        local = self._local
        outer = getattr(local, "owner", False)
        local.owner = True
        try:
            yield
        finally:
            local.owner = outer

    @contextmanager
    def kept(self) -> Iterator[None]:
        """Around a reader thread's life: the bodies it runs share its connection."""
        self._local.owner = True
        try:
            yield
        finally:
            self._local.owner = False
            self.release()

    @contextmanager
    def connect(self) -> Iterator[Connection]:
        with lent() as borrowed:  # a body LoopReaders runs: its connection
            if borrowed is not None:
                yield borrowed
                return
        local = self._local
        if getattr(local, "busy", False) or not getattr(local, "owner", False):
            with self._engine.connect() as own:
                yield own
            return
        conn: Connection | None = getattr(local, "conn", None)
        if conn is None or conn.closed or conn.invalidated:
            conn = local.conn = self._engine.connect()
            with self._lock:
                self._kept.add(conn)
        local.busy = True
        try:
            yield conn
        finally:
            local.busy = False
            try:
                conn.rollback()
            except BaseException:
                # A connection that cannot even roll back is not handed out again.
                self.release()
                raise

    def release(self) -> None:
        """The current thread's kept connection back to the pool, if it has one."""
        conn: Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            return
        self._local.conn = None
        with self._lock:
            self._kept.discard(conn)
        conn.close()

    def open_count(self) -> int:
        """How many connections the owning threads keep now."""
        with self._lock:
            return sum(1 for c in self._kept if not c.closed)

    def close(self) -> None:
        """Every kept connection back to the pool (at shutdown, once no body runs)."""
        with self._lock:
            kept, self._kept = self._kept, set()
        for conn in kept:
            conn.close()
        self._local = threading.local()


# (the caller's loop, its future, the caller's context, the body)
_Job = tuple[
    asyncio.AbstractEventLoop, "asyncio.Future[Any]", contextvars.Context, Callable[[], Any]
]


def _settle(fut: asyncio.Future[Any], result: Any, exc: BaseException | None) -> None:
    if fut.done():  # the awaiting request was cancelled
        return
    if exc is not None:
        fut.set_exception(exc)
    else:
        fut.set_result(result)


class ReaderThreads:
    """`count` threads that run sync route bodies for the event loop, at most `count` at once
    (one per pooled connection: a body beyond the pool would wait for a connection, or open and
    close one of its own). A job is a queue put and, at its end, one call_soon_threadsafe: what
    anyio's to_thread costs besides (a capacity limiter, a cancel scope, a Condition per job)
    was as much CPU as a keyset page. As with to_thread, the body runs in a copy of the
    caller's context. Threads start at the first job and stop at `close`."""

    def __init__(self, connections: LoopConnection, count: int) -> None:
        self._connections = connections
        self._count = count
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    async def run(self, func: Callable[[], R]) -> R:
        if len(self._threads) < self._count:
            self._start()
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[R] = loop.create_future()
        self._jobs.put((loop, fut, contextvars.copy_context(), func))
        return await fut

    def _start(self) -> None:
        with self._lock:
            while len(self._threads) < self._count:
                name = f"avadata-reader-{len(self._threads)}"
                thread = threading.Thread(target=self._work, name=name, daemon=True)
                thread.start()
                self._threads.append(thread)

    def _work(self) -> None:
        with self._connections.kept():
            while True:
                try:
                    job = self._jobs.get(timeout=_KEEP_IDLE_S)
                except queue.Empty:
                    self._connections.release()
                    job = self._jobs.get()
                if job is None:
                    return
                loop, fut, ctx, func = job
                result: Any = None
                exc: BaseException | None = None
                try:
                    result = ctx.run(func)
                except BaseException as e:  # handed to the awaiting request, as to_thread does
                    exc = e
                try:
                    loop.call_soon_threadsafe(_settle, fut, result, exc)
                except RuntimeError:  # the loop closed meanwhile (shutdown): nobody waits
                    pass
                del job, fut, result, exc

    async def stop(self) -> None:
        """At shutdown, as LoopReaders.stop."""
        self.close()

    def close(self, timeout: float = 10.0) -> None:
        """Stop the threads once their current jobs end; each hands its connection back."""
        with self._lock:
            threads, self._threads = self._threads, []
        for _ in threads:
            self._jobs.put(None)
        deadline = time.monotonic() + timeout  # one wait for all: shutdown must not add up
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
