"""Run indexers for several EVM chains, sharing one store writer in this process.

Each chain's fetching and decoding runs in its own child process (fetch.feed.ProcessFeed) unless
`RunOptions.fetch_process` is off.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from avadata.indexer.appliers import default_appliers
from avadata.indexer.evm import EvmIndexer, Feed, IndexerOptions, Progress
from avadata.indexer.fetch.feed import LocalFeed, ProcessFeed, chain_facts
from avadata.indexer.fetch.protocol import FeedConfig, NativeBalanceMode
from avadata.indexer.fetch.spawn import take
from avadata.indexer.sink import StoreSink
from avadata.sources.evm import EvmSource
from avadata.sources.jsonrpc import JsonRpcClient, RetryPolicy
from avadata.store.types import Engine
from avadata.store.writer import Applier


@dataclass(slots=True)
class RunOptions:
    once: bool = True
    poll_seconds: float = 2.0
    chunk_blocks: int = 50
    native_balances: NativeBalanceMode = NativeBalanceMode.HEAD
    max_in_flight: int = 4
    timeout: float = 30.0
    # Fetch, decode and prepare in a child process per chain (both cores busy); off: all in
    # this process.
    fetch_process: bool = True
    # How long a node may fail before a request gives up (None: the client's default, ~20 s);
    # a follower then waits and tries again, a backfill (`once`) stops.
    retry: RetryPolicy | None = None
    # Longest a write transaction stays open (sink.StoreSink: fewer commits write less).
    commit_seconds: float = 2.0


async def index_chains(
    engine: Engine,
    rpc_urls: Sequence[str],
    options: RunOptions,
    *,
    appliers: Sequence[Applier] | None = None,
    on_start: Callable[[int, str, Progress], None] | None = None,
    stop_event: asyncio.Event | None = None,
) -> dict[int, Progress]:
    """Index every chain behind `rpc_urls` (chain ID read from each node).

    With `once`, backfill each to its current head and return; else follow until `stop_event`.
    `appliers` default to `default_appliers()` (the metrics rollup).
    """
    if appliers is None:
        appliers = default_appliers()
    sink = StoreSink(engine, appliers, commit_seconds=options.commit_seconds)
    clients = [
        JsonRpcClient(
            url, timeout=options.timeout, max_in_flight=options.max_in_flight, retry=options.retry
        )
        for url in rpc_urls
    ]
    indexers: list[EvmIndexer] = []
    # Each node's head as its fetch process asked it, when it did (the first range ends there).
    heads: list[int | None] = []
    try:
        # One writer for the whole store: SQLite allows one, and it keeps Postgres simple.
        write_lock = asyncio.Lock()
        for url, client in zip(rpc_urls, clients, strict=True):
            indexer, head = await _chain(url, EvmSource(client), sink, options, write_lock)
            indexers.append(indexer)
            heads.append(head)
            if on_start is not None:
                on_start(indexer.chain_id, url, indexer.progress)
        await _run(sink, write_lock, indexers, heads, options, stop_event)
        return {i.chain_id: i.progress for i in indexers}
    finally:
        await asyncio.gather(*(i.feed.aclose() for i in indexers))
        await asyncio.gather(*(c.aclose() for c in clients))


async def _chain(
    url: str, source: EvmSource, sink: StoreSink, options: RunOptions, write_lock: asyncio.Lock
) -> tuple[EvmIndexer, int | None]:
    """The indexer of the chain behind `url`, its feed started; and the node's head when its
    fetch process asked it already."""
    child = take(url) if options.fetch_process else None
    # A fetch process started ahead asked the node these already (protocol.Facts): this
    # process then sends none of its own in a backfill.
    facts = await chain_facts(child, url) if child is not None else None
    chain_id = facts.chain_id if facts is not None else await source.chain_id()
    config = FeedConfig(
        rpc_url=url,
        chain_id=chain_id,
        prepares=sink.prepares,
        chunk_blocks=options.chunk_blocks,
        native_balances=options.native_balances,
        timeout=options.timeout,
        max_in_flight=options.max_in_flight,
        retry=options.retry,
    )
    feed: Feed
    if child is not None:
        process_feed = ProcessFeed(config, child)
        process_feed.start()
        feed = process_feed
    else:
        feed = LocalFeed(source, config)
    indexer = EvmIndexer(source, feed, sink, chain_id, url, IndexerOptions(), write_lock=write_lock)
    return indexer, facts.head if facts is not None else None


async def _run(
    sink: StoreSink,
    write_lock: asyncio.Lock,
    indexers: list[EvmIndexer],
    heads: list[int | None],
    options: RunOptions,
    stop_event: asyncio.Event | None,
) -> None:
    """Backfill or follow every chain at once; what was written is committed however it ends."""
    timer = asyncio.create_task(_flush_stalled(sink, write_lock))
    try:
        if options.once:
            await asyncio.gather(*(i.backfill(h) for i, h in zip(indexers, heads, strict=True)))
        else:
            await asyncio.gather(
                *(
                    i.follow(options.poll_seconds, stop_event, head=h)
                    for i, h in zip(indexers, heads, strict=True)
                )
            )
    finally:
        timer.cancel()
        # What was written is whole batches with their cursors: keep it whatever ended the run
        # (a reorg on one chain, a node gone on another).
        async with write_lock:
            await asyncio.to_thread(sink.flush)


async def _flush_stalled(sink: StoreSink, write_lock: asyncio.Lock) -> None:
    """Commit a transaction the sink has held open for `commit_seconds` (a feed waiting on a
    slow node): the store's other writers wait on it meanwhile."""
    while True:
        await asyncio.sleep(sink.commit_seconds)
        async with write_lock:
            await asyncio.to_thread(sink.flush_if_older, sink.commit_seconds)
