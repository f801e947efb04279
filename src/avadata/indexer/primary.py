"""Primary-network indexer: Index API containers -> codec -> store, resumable per chain.

Each batch's rows and the chain's cursor commit together, so a restart at any point resumes
at the first container not committed. Block times come from the block bytes; a block that
carries none (pre-fork Apricot) takes its parent's, and only the very first such block falls
back to the node's acceptance time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine

from avadata.decode.primary_blocks import block_facts
from avadata.decode.primary_rows import BlockRows, block_rows
from avadata.sources.index_api import IndexApiSource, index_url
from avadata.sources.jsonrpc import JsonRpcClient
from avadata.store.primary_writer import get_primary_cursor, write_blocks

# Index API chain letter -> the blockchain ID written in rows (aliases until configured).
CHAINS = ("P", "X", "C")


@dataclass(slots=True)
class PrimaryProgress:
    blocks: int = 0
    transactions: int = 0


def _accepted_seconds(text: str) -> int:
    # RFC 3339 with up to nanoseconds; Python parses microseconds, so cut the extra digits.
    head, dot, rest = text.partition(".")
    if dot:
        digits = "".join(ch for ch in rest if ch.isdigit())
        tz = rest[len(digits) :]
        text = f"{head}.{digits[:6]}{tz}"
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())


async def index_chain(
    engine: Engine,
    source: IndexApiSource,
    chain: str,
    blockchain_id: str,
    *,
    batch: int = 1024,
    stop: Callable[[], bool] | None = None,
    progress: PrimaryProgress | None = None,
) -> int:
    """Index `chain` up to the node's last accepted container; returns the cursor reached."""
    progress = progress or PrimaryProgress()
    cursor = get_primary_cursor(engine, blockchain_id)
    last = await source.last_accepted_index()
    next_index = 0 if cursor is None else cursor + 1
    parent_ts: int | None = None
    while last is not None and next_index <= last:
        if stop is not None and stop():
            break
        containers = await source.range(next_index, min(batch, last - next_index + 1))
        if not containers:
            break
        rows: list[BlockRows] = []
        for c in containers:
            facts = block_facts(chain, c.raw)
            ts = facts.timestamp
            if ts is None:
                ts = parent_ts if parent_ts is not None else _accepted_seconds(c.accepted_at)
            parent_ts = ts
            r = block_rows(chain, blockchain_id, facts, ts)
            progress.transactions += len(r.txs)
            rows.append(r)
        write_blocks(engine, blockchain_id, rows, containers[-1].index, containers[-1].id)
        progress.blocks += len(containers)
        next_index = containers[-1].index + 1
    return next_index - 1


async def index_node(
    engine: Engine, node: str, *, once: bool = True, poll: float = 2.0, batch: int = 1024
) -> None:
    """Index P, X and C of one node; follow new containers unless `once`."""
    clients = {c: JsonRpcClient(index_url(node, c), max_batch=4) for c in CHAINS}
    try:
        while True:
            for chain, client in clients.items():
                await index_chain(engine, IndexApiSource(client), chain, chain, batch=batch)
            if once:
                return
            await asyncio.sleep(poll)
    finally:
        for client in clients.values():
            await client.aclose()
