"""The fetch process's feed hands the writer what is waiting, in order, at most a group at once."""

from __future__ import annotations

import asyncio

import pytest

from avadata.indexer.fetch.feed import ProcessFeed
from avadata.indexer.fetch.protocol import FeedConfig
from avadata.store.prepared import PreparedBatch
from tests.support.fault_proxy import FaultProxy

pytestmark = pytest.mark.e2e


def _groups(url: str, chain_id: int, head: int, pause: float) -> list[list[PreparedBatch]]:
    async def run() -> list[list[PreparedBatch]]:
        config = FeedConfig(rpc_url=url, chain_id=chain_id, prepares=(), chunk_blocks=12)
        feed = ProcessFeed(config)
        out = []
        try:
            async for group in feed.groups(0, head, set(), 3):
                out.append(group)
                await asyncio.sleep(pause)  # a writer this slow falls behind
        finally:
            await feed.aclose()
        return out

    return asyncio.run(run())


def test_a_writer_behind_gets_what_waits_up_to_a_group(devnet_chain) -> None:
    groups = _groups(devnet_chain.rpc_url, devnet_chain.chain_id, devnet_chain.head, 0.3)
    batches = [b for g in groups for b in g]
    # Every block once, in order, whatever the grouping.
    assert [n for b in batches for n, _, _ in b.chain] == list(range(devnet_chain.head + 1))
    assert max(len(g) for g in groups) == 3
    assert all(1 <= len(g) <= 3 for g in groups)


def test_a_writer_that_keeps_up_is_not_kept_waiting_for_a_group(devnet_chain) -> None:
    # A slow node and a writer with nothing to do: each batch is handed over as it comes.
    with FaultProxy(devnet_chain.rpc_url, rate=0.0, latency=0.05) as proxy:
        groups = _groups(proxy.url, devnet_chain.chain_id, devnet_chain.head, 0.0)
    batches = [b for g in groups for b in g]
    assert [n for b in batches for n, _, _ in b.chain] == list(range(devnet_chain.head + 1))
    assert any(len(g) < 3 for g in groups[:-1])
