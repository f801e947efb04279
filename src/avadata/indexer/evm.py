"""`avadata index` for one EVM chain: backfill in chunks, then follow the head.

Indexer stage: loops, not logic. Fetching, decoding and enrichment of the next chunks run ahead
(a window of tasks, awaited in order) while the current chunk is written; each chunk's rows and
cursor commit together in the sink, so a crash at any point loses or duplicates nothing and a
restart resumes after the last written chunk.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from avadata.decode.evm import to_batch
from avadata.errors import ContinuityError
from avadata.indexer.enrich import NativeBalanceMode, enrich
from avadata.records import EvmBatch
from avadata.sources.evm import EvmSource


class EvmSink(Protocol):
    """Where batches go: the store, behind this narrow seam (tests may use any implementation)."""

    def last_indexed(self, chain_id: int) -> tuple[int, str] | None: ...

    def known_tokens(self, chain_id: int) -> set[str]: ...

    def write(self, batch: EvmBatch) -> None: ...

    def mark_chain(self, chain_id: int, rpc_url: str, has_traces: bool | None) -> None: ...


@dataclass(slots=True)
class Progress:
    blocks: int = 0
    transactions: int = 0
    malformed_logs: int = 0
    next_block: int = 0
    target: int = 0
    listeners: list[Callable[[Progress], None]] = field(default_factory=list)

    def update(self, batch: EvmBatch) -> None:
        self.blocks += len(batch.blocks)
        self.transactions += len(batch.transactions)
        self.malformed_logs += batch.stats.malformed_logs
        self.next_block = batch.last_block + 1
        for listener in self.listeners:
            listener(self)


@dataclass(slots=True)
class IndexerOptions:
    chunk_blocks: int = 50
    window: int = 3
    native_balances: NativeBalanceMode = NativeBalanceMode.HEAD
    start_block: int = 0


class EvmIndexer:
    def __init__(
        self,
        source: EvmSource,
        sink: EvmSink,
        chain_id: int,
        rpc_url: str,
        options: IndexerOptions | None = None,
        write_lock: asyncio.Lock | None = None,
    ) -> None:
        self.source = source
        self.sink = sink
        self.chain_id = chain_id
        self.rpc_url = rpc_url
        self.options = options or IndexerOptions()
        self.progress = Progress()
        self._known_tokens: set[str] = set()
        # Shared by every chain's indexer of one process: the store has one writer.
        self._write_lock = write_lock or asyncio.Lock()

    def resume_point(self) -> tuple[int, str | None]:
        last = self.sink.last_indexed(self.chain_id)
        if last is None:
            return self.options.start_block, None
        return last[0] + 1, last[1]

    async def _prepare(self, start: int, stop: int) -> EvmBatch:
        raws = await self.source.fetch_range(start, stop)
        batch = await asyncio.to_thread(to_batch, self.chain_id, raws)
        await enrich(
            self.source, batch, self._known_tokens, native_balances=self.options.native_balances
        )
        return batch

    def _check_continuity(self, batch: EvmBatch, parent: str | None) -> str:
        expected = parent
        for block in batch.blocks:
            if expected is not None and block.parent_hash != expected:
                raise ContinuityError(
                    f"chain {self.chain_id}: block {block.number} has parentHash "
                    f"{block.parent_hash}, but the indexed block {block.number - 1} is {expected}; "
                    "the node reorganised. Stopping rather than mixing two histories."
                )
            expected = block.hash
        assert expected is not None
        return expected

    async def run_to(self, stop: int) -> int:
        """Index from the resume point up to block `stop` inclusive; returns the next block."""
        start, parent = self.resume_point()
        self._known_tokens = self.sink.known_tokens(self.chain_id)
        self.progress.next_block = start
        self.progress.target = stop + 1
        size = self.options.chunk_blocks
        chunks = [(s, min(s + size, stop + 1)) for s in range(start, stop + 1, size)]
        pending: list[asyncio.Task[EvmBatch]] = []
        marked = False
        try:
            for i, _ in enumerate(chunks):
                while len(pending) < self.options.window and i + len(pending) < len(chunks):
                    s, e = chunks[i + len(pending)]
                    pending.append(asyncio.create_task(self._prepare(s, e)))
                batch = await pending.pop(0)
                parent = self._check_continuity(batch, parent)
                if not marked:
                    self.sink.mark_chain(self.chain_id, self.rpc_url, self.source.has_traces)
                    marked = True
                async with self._write_lock:
                    await asyncio.to_thread(self.sink.write, batch)
                self._known_tokens.update(t.address for t in batch.tokens)
                self.progress.update(batch)
        finally:
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        return stop + 1

    async def backfill(self) -> int:
        head = await self.source.head()
        return await self.run_to(head)

    async def follow(
        self, poll_seconds: float = 2.0, stop_event: asyncio.Event | None = None
    ) -> None:
        """Backfill, then keep up with new blocks until `stop_event` is set."""
        while stop_event is None or not stop_event.is_set():
            head = await self.source.head()
            start, _ = self.resume_point()
            if head >= start:
                await self.run_to(head)
            try:
                if stop_event is None:
                    await asyncio.sleep(poll_seconds)
                else:
                    await asyncio.wait_for(stop_event.wait(), timeout=poll_seconds)
            except TimeoutError:
                pass
