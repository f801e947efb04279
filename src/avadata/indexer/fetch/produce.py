"""Where a range's chunks are fetched, decoded, enriched and prepared: `produce`.

Indexer stage. The same loop runs in a fetch process (child.py, the usual way) and in the
indexer's own process (feed.LocalFeed). It imports the decoders and the store's encoders: a
fetch process loads it in a thread once its first requests are out (child.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from avadata.decode.evm import decode_block, empty_batch, finish_batch, to_batch
from avadata.indexer.fetch.chunking import chunks
from avadata.indexer.fetch.enrich import AskedAtHead, enrich
from avadata.indexer.fetch.protocol import FeedConfig
from avadata.records import EvmBatch, RawBlock
from avadata.sources.evm import EvmSource
from avadata.store.prepared import PreparedBatch, prepare

if TYPE_CHECKING:
    from avadata.indexer.fetch.guess import Prefetch


def preload() -> None:
    """Load what decoding loads on first use (the method signature table)."""
    from avadata.decode.methods import signature_table

    signature_table()


def _prepare(batch: EvmBatch, prepares: tuple[Callable[[EvmBatch], Any], ...]) -> PreparedBatch:
    return prepare(batch, [p(batch) for p in prepares])


async def _inline(fn: Callable[..., Any], *args: Any) -> Any:
    return fn(*args)


# Blocks decoded between two turns of the event loop (see `_decode_turns`).
_BLOCKS_PER_TURN = 5


async def _decode_turns(chain_id: int, raws: list[RawBlock]) -> EvmBatch:
    """`to_batch` on the event loop, giving the loop a turn every few blocks: the other chunks
    in flight each need several round trips to the node (logs, a gas search's rounds), and a
    chunk decoded in one go held each of their next requests back that long."""
    batch = empty_batch(chain_id, raws)
    for i, raw in enumerate(raws):
        decode_block(chain_id, raw, batch)
        if i % _BLOCKS_PER_TURN == _BLOCKS_PER_TURN - 1:
            await asyncio.sleep(0)
    return finish_batch(batch, raws)


async def produce(
    source: EvmSource,
    config: FeedConfig,
    start: int,
    stop: int,
    known_tokens: set[str],
    *,
    inline: bool = False,
    ahead: Prefetch | None = None,
) -> AsyncIterator[PreparedBatch]:
    """Prepared batches of blocks start..stop, in order, with a window of chunks in flight.

    `inline` runs the CPU work on the event loop: right in the fetch process, where a worker
    thread would only add GIL hand-offs; decoding there gives the loop a turn every few blocks
    (`_decode_turns`), so the other chunks' next requests go out meanwhile. In a process that
    also writes, decoding in a thread lets the loop keep the writer's turn short. Chunks in
    `ahead` (guess.py) are taken from there.

    The chunks in flight fetch at once but decode one after another, in order: given turns
    every few blocks, a later chunk whose blocks had arrived decoded alongside the first one,
    and the writer, waiting on the first, sat idle meanwhile (the fetch process ran alone on
    the CPU for much of the bench backfill, docs/benchmarks.md)."""
    work = _inline if inline else asyncio.to_thread
    asked = AskedAtHead()

    async def one(
        s: int, e: int, turn: asyncio.Event | None, decoded: asyncio.Event
    ) -> PreparedBatch:
        try:
            raws = await ahead.take(s, e) if ahead is not None else None
            if raws is None:
                raws = await source.fetch_range(s, e)
            # Decoding in chunk order (see the docstring).
            if turn is not None:
                await turn.wait()
            if inline:
                batch = await _decode_turns(config.chain_id, raws)
            else:
                batch = await work(to_batch, config.chain_id, raws)
        finally:
            decoded.set()
        await enrich(
            source, batch, known_tokens, native_balances=config.native_balances, asked=asked
        )
        # New tokens are known from here on: later chunks do not ask their metadata again.
        known_tokens.update(t.address for t in batch.tokens)
        return await work(_prepare, batch, config.prepares)

    todo = chunks(start, stop, config.chunk_blocks)
    pending: list[asyncio.Task[PreparedBatch]] = []
    # The event the next chunk's decoding waits on: the chunk before it decoded.
    turn: asyncio.Event | None = None
    try:
        for i in range(len(todo)):
            while len(pending) < config.window and i + len(pending) < len(todo):
                decoded = asyncio.Event()
                pending.append(asyncio.create_task(one(*todo[i + len(pending)], turn, decoded)))
                turn = decoded
            yield await pending.pop(0)
    finally:
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
