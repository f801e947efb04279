"""The store behind the indexer's EvmSink seam: batches written in long transactions, with the
appliers (appliers.py) run in each write."""

from __future__ import annotations

import contextlib
import functools
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from avadata.indexer.appliers import split
from avadata.records import EvmBatch
from avadata.store import cursors, reads, writer
from avadata.store.batch_cache import Carried
from avadata.store.prepared import PreparedBatch
from avadata.store.types import Connection, Engine
from avadata.store.writer import Applier


class StoreSink:
    """The store as the indexer writes it: batches go into one open transaction, committed
    every `commit_batches` batches or `commit_seconds` after it began, whichever comes first,
    and at `flush()`.

    Why: each commit writes every page its rows dirtied, and a batch dirties pages all over
    the hash and address indexes, so a commit per 50-block batch rewrote the same index pages
    again and again, writing many times the file's size; a few commits per backfill write
    each page a few times (the figures: docs/benchmarks.md, stop 16).
    Nothing is held in memory for it (the database's own page cache spills to its log), and a
    crash still loses whole batches only, cursor included: the indexer re-fetches them.

    The transaction is this object's: chain marks and its own reads (the cursor to resume
    from, known tokens) go through it too (a second writer connection would wait on its lock);
    other connections see the last commit. `flush_if_older` (run.py calls it on a timer)
    commits a transaction that a stalled feed left open, so the store's other writers (the
    primary-network follower) wait at most about `commit_seconds`.
    """

    def __init__(
        self,
        engine: Engine,
        appliers: Sequence[Applier] = (),
        *,
        commit_batches: int = 16,
        commit_seconds: float = 2.0,
    ) -> None:
        self.engine = engine
        self.appliers = [split(a) for a in appliers]
        self.commit_batches = commit_batches
        self.commit_seconds = commit_seconds
        # Writes come from worker threads (asyncio.to_thread) and the flush timer's.
        self._lock = threading.Lock()
        self._conn: Connection | None = None
        self._began = 0.0
        self._held = 0
        self.commits = 0
        # What the batches written so far left, for the next batch (balances, last seen).
        self._carried = Carried()

    @property
    def prepares(self) -> tuple[Callable[[EvmBatch], Any], ...]:
        return tuple(a.prepare for a in self.appliers)

    def last_indexed(self, chain_id: int) -> tuple[int, str] | None:
        """The cursor as written, committed or not (the run resumes after what it wrote)."""
        with self._reading() as conn:
            return cursors.get_cursor(conn, chain_id)

    def known_tokens(self, chain_id: int) -> set[str]:
        with self._reading() as conn:
            return reads.known_tokens(conn, chain_id)

    @contextlib.contextmanager
    def _reading(self) -> Iterator[Connection]:
        """The open transaction when there is one: a new connection of this writer engine
        would wait for its lock (SQLite) or not see its rows (PostgreSQL)."""
        with self._lock:
            if self._conn is not None:
                yield self._conn
                return
        with self.engine.connect() as conn:
            yield conn

    def write(self, batches: Sequence[PreparedBatch]) -> None:
        """Consecutive batches of one chain, into the open transaction; a failure rolls back
        everything since the last commit."""
        with self._lock:
            conn = self._open()
            try:
                for batch in batches:
                    writer.write_prepared_in(
                        conn, batch, after=self._steps(batch), carried=self._carried
                    )
            except BaseException:
                self._end(commit=False)
                raise
            self._held += len(batches)
            if (
                self._held >= self.commit_batches
                or time.monotonic() - self._began >= self.commit_seconds
            ):
                self._end(commit=True)

    def mark_chain(self, chain_id: int, rpc_url: str, has_traces: bool | None) -> None:
        with self._lock:
            conn = self._open()
            try:
                writer.mark_chain(conn, chain_id=chain_id, rpc_url=rpc_url, has_traces=has_traces)
            except BaseException:
                self._end(commit=False)
                raise

    def flush(self) -> None:
        """Commit what is written."""
        with self._lock:
            if self._conn is not None:
                self._end(commit=True)

    def flush_if_older(self, seconds: float) -> None:
        with self._lock:
            if self._conn is not None and time.monotonic() - self._began >= seconds:
                self._end(commit=True)

    def _open(self) -> Connection:
        if self._conn is None:
            conn = self.engine.connect()
            conn.begin()
            self._conn, self._began, self._held = conn, time.monotonic(), 0
        return self._conn

    def _end(self, *, commit: bool) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            if commit:
                try:
                    self._carried.write_deferred()  # the rows it held back for the commit
                    conn.commit()
                except BaseException:
                    self._carried.clear()  # what it held may not be stored
                    raise
                self.commits += 1
            else:
                self._carried.clear()  # what it held may be what was just rolled back
                conn.rollback()
        finally:
            conn.close()

    def _steps(self, batch: PreparedBatch) -> list[Callable[[Connection], None]]:
        return [
            writer.bound(
                functools.partial(a.apply, carried=self._carried) if a.carries else a.apply, v
            )
            for a, v in zip(self.appliers, batch.applier_inputs, strict=True)
        ]
