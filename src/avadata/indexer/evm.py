"""`avadata index` for one EVM chain: backfill in chunks, then follow the head.

Indexer stage: loops, not logic. A feed (`fetch/feed.py`: by default a child process) fetches,
decodes and prepares the next chunks while this loop writes the ones already prepared; chunks
arrive in order, and each chunk's rows and cursor commit together in the sink (several waiting
chunks may share one transaction), so a crash at any point loses or duplicates nothing and a
restart resumes after the last written chunk.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from avadata.errors import ContinuityError, SourceError, WrongChain
from avadata.indexer import outage
from avadata.sources.evm import EvmSource
from avadata.store.prepared import PreparedBatch

if TYPE_CHECKING:
    from avadata.sources.heads import HeadWatcher

log = logging.getLogger(__name__)


class EvmSink(Protocol):
    """Where batches go: the store, behind this narrow seam (tests may use any implementation)."""

    def last_indexed(self, chain_id: int) -> tuple[int, str] | None: ...

    def known_tokens(self, chain_id: int) -> set[str]: ...

    def write(self, batches: Sequence[PreparedBatch]) -> None: ...

    def flush(self) -> None:
        """Make everything written durable (a sink may hold writes back to commit fewer times)."""

    def mark_chain(self, chain_id: int, rpc_url: str, has_traces: bool | None) -> None: ...


@dataclass(slots=True)
class Progress:
    blocks: int = 0
    transactions: int = 0
    malformed_logs: int = 0
    next_block: int = 0
    target: int = 0
    listeners: list[Callable[[Progress], None]] = field(default_factory=list)

    def update(self, batch: PreparedBatch) -> None:
        self.blocks += len(batch.chain)
        self.transactions += batch.transactions
        self.malformed_logs += batch.malformed_logs
        self.next_block = batch.last_block + 1
        for listener in self.listeners:
            listener(self)


class Feed(Protocol):
    """Prepared batches of a range, in order, in groups (see fetch/feed.py)."""

    @property
    def has_traces(self) -> bool | None: ...

    def groups(
        self, start: int, stop: int, known_tokens: set[str], group_size: int
    ) -> AsyncIterator[list[PreparedBatch]]: ...

    async def aclose(self) -> None: ...


@dataclass(slots=True)
class IndexerOptions:
    """The write loop's options (chunking and fetching are the feed's: protocol.FeedConfig)."""

    start_block: int = 0
    # Most chunks handed to the sink at once: those already waiting when the writer is free,
    # up to this many (a feed that has only one ready gives one). Each chunk held adds about
    # 15 MB to the writer's peak on 50-tx blocks: 4 keeps both processes together under
    # 500 MB. (How often the sink commits is its own: sink.StoreSink.)
    group_chunks: int = 4


class EvmIndexer:
    def __init__(
        self,
        source: EvmSource,
        feed: Feed,
        sink: EvmSink,
        chain_id: int,
        rpc_url: str,
        options: IndexerOptions | None = None,
        write_lock: asyncio.Lock | None = None,
    ) -> None:
        self.source = source
        self.feed = feed
        self.sink = sink
        self.chain_id = chain_id
        self.rpc_url = rpc_url
        self.options = options or IndexerOptions()
        self.progress = Progress()
        # Shared by every chain's indexer of one process: the store has one writer.
        self._write_lock = write_lock or asyncio.Lock()

    def resume_point(self) -> tuple[int, str | None]:
        last = self.sink.last_indexed(self.chain_id)
        if last is None:
            return self.options.start_block, None
        return last[0] + 1, last[1]

    def _check_continuity(self, batch: PreparedBatch, parent: str | None) -> str:
        expected = parent
        for number, block_hash, parent_hash in batch.chain:
            if expected is not None and parent_hash != expected:
                raise ContinuityError(
                    f"chain {self.chain_id}: block {number} of {self.rpc_url} has parentHash "
                    f"{parent_hash}, but the indexed block {number - 1} is {expected}: "
                    "the node reorganised, or it is not the chain this store holds (a new "
                    "devnet, another network with this chain ID: give it a new store). "
                    "Stopping rather than mixing two histories."
                )
            expected = block_hash
        assert expected is not None
        return expected

    def _check_not_behind(self, head: int, start: int, parent: str | None) -> None:
        """WrongChain when the node's head is below the last block the store holds of this
        chain: not the node the store was indexed from (a devnet started afresh), or one far
        from synced; either way following it would wait for nothing, or mix two histories."""
        if parent is not None and head < start - 1:
            raise WrongChain(
                f"the node at {self.rpc_url} is at block {head} of chain {self.chain_id}, but "
                f"the store holds blocks up to {start - 1}: is it the node this store was "
                "indexed from? (a new devnet or network needs a new store)"
            )

    async def run_to(self, stop: int) -> int:
        """Index from the resume point up to block `stop` inclusive; returns the next block."""
        start, parent = self.resume_point()
        known_tokens = self.sink.known_tokens(self.chain_id)
        self.progress.next_block = start
        self.progress.target = stop + 1
        if start > stop:
            self._check_not_behind(stop, start, parent)
            return stop + 1
        marked = flushed = False
        async for group in self.feed.groups(start, stop, known_tokens, self.options.group_chunks):
            # Every batch of the group is checked before any is written: a reorg inside the
            # group stops the indexer with the cursor before the group.
            for batch in group:
                parent = self._check_continuity(batch, parent)
            if not marked:
                self.sink.mark_chain(self.chain_id, self.rpc_url, self.feed.has_traces)
                marked = True
            # The range's last group commits under the same hold of the lock: a follower's
            # block does not wait behind another chain's write between its write and commit.
            last = group[-1].last_block >= stop
            async with self._write_lock:
                await asyncio.to_thread(self._write, group, last)
            for batch in group:
                self.progress.update(batch)
            flushed = last
        # The range is in the store when this returns (follow mode waits here for new blocks).
        if not flushed:
            async with self._write_lock:
                await asyncio.to_thread(self.sink.flush)
        return stop + 1

    def _write(self, group: list[PreparedBatch], flush: bool) -> None:
        self.sink.write(group)
        if flush:
            self.sink.flush()

    async def backfill(self, head: int | None = None) -> int:
        """Index up to the node's head (`head` when the caller knows it already)."""
        if head is None:
            head = await self.source.head()
        return await self.run_to(head)

    async def follow(
        self,
        poll_seconds: float = 2.0,
        stop_event: asyncio.Event | None = None,
        *,
        head: int | None = None,
    ) -> None:
        """Backfill, then keep up with new blocks until `stop_event` is set (`head`: the
        node's head when the caller knows it already; later polls ask).

        A node that stays unreachable past the client's retries does not end the follower: it
        waits and tries again as `outage.py` says. A reorg (ContinuityError) and store errors
        still end it: retrying cannot fix those."""
        # New heads pushed by the node where it can (sources/heads.py); polling otherwise. Loaded
        # here: a backfill's parent never imports aiohttp (tests/unit/test_fetch_imports.py).
        from avadata.sources.heads import HeadWatcher

        watcher = HeadWatcher(self.rpc_url)
        watching = asyncio.create_task(watcher.run(), name=f"heads-{self.chain_id}")
        try:
            await self._follow(poll_seconds, stop_event, head, watcher)
        finally:
            watching.cancel()
            await asyncio.gather(watching, return_exceptions=True)

    async def _follow(
        self,
        poll_seconds: float,
        stop_event: asyncio.Event | None,
        head: int | None,
        watcher: HeadWatcher,
    ) -> None:
        wait = poll_seconds
        known = head
        first = True
        while stop_event is None or not stop_event.is_set():
            try:
                head = known if known is not None else await self.source.head()
                known = None
                start, parent = self.resume_point()
                if first:  # later, a node briefly behind (a lagging replica) is waited for
                    self._check_not_behind(head, start, parent)
                    first = False
                if head >= start:
                    await self.run_to(head)
                wait = poll_seconds
            except SourceError as exc:
                wait = outage.longer(wait, poll_seconds)
                log.warning("chain %s: %s; trying again in %.0f s", self.chain_id, exc, wait)
                await outage.pause(wait, stop_event)
                continue
            pushed = await watcher.wait(poll_seconds, stop_event)
            # A pushed head is the node's word already: one round trip less before the fetch
            # (one below what is indexed, a stale push, is asked again).
            if pushed is not None and pushed >= self.progress.next_block:
                known = pushed
