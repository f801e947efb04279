"""The follower learns of new blocks from the node's `eth_subscribe("newHeads")` over
WebSocket (anvil serves it on its HTTP port), so a block is indexed well inside a poll period
it would otherwise wait for; behind an HTTP-only proxy (no WebSocket) it polls as before.

Truth: the node's own head and blocks (eth_blockNumber, eth_getBlockByNumber)."""

from __future__ import annotations

import asyncio
import time

import pytest

from avadata.devnet.facade.routes import ChainRoute
from avadata.devnet.facade.server import FacadeServer
from avadata.indexer.run import RunOptions, index_chains
from avadata.sources.heads import HeadWatcher
from avadata.store import cursors
from tests.e2e import test_follow
from tests.e2e.test_follow import CHAIN, _stored_hashes, send_transfers
from tests.support.fault_proxy import FaultProxy
from tests.support.node import Node

pytestmark = pytest.mark.e2e
anvil = test_follow.anvil  # a fresh automining anvil per test


async def _caught_up(engine: object, head: int, timeout: float) -> float:
    """Seconds until the store's cursor reaches `head` (fails past `timeout`)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        cur = await asyncio.to_thread(cursors.get_cursor, engine, CHAIN)
        if cur is not None and cur.block_number >= head:
            return time.monotonic() - t0
        await asyncio.sleep(0.02)
    raise AssertionError(f"block {head} not indexed within {timeout} s")


def _pushed_lags(url: str, node: Node, engine: object, poll: float) -> list[float]:
    """Seconds from each of five sends to its block in the store, an indexer following `url`
    with a `poll` period."""

    async def scenario() -> list[float]:
        stop = asyncio.Event()
        options = RunOptions(once=False, poll_seconds=poll, fetch_process=False)
        task = asyncio.create_task(index_chains(engine, [url], options, stop_event=stop))
        await _caught_up(engine, node.head(), 30)
        await asyncio.sleep(0.5)  # the subscription is up
        lags = []
        for _ in range(5):
            await asyncio.to_thread(send_transfers, node, 1)
            lags.append(await _caught_up(engine, node.head(), poll - 5))
        stop.set()
        await task
        return lags

    return asyncio.run(scenario())


def test_new_heads_are_pushed_over_websocket(anvil, engine_factory) -> None:
    node = Node(anvil.rpc_url)
    send_transfers(node, 2)
    engine = engine_factory()
    # A block indexed in well under the poll period was pushed, not polled for.
    lags = _pushed_lags(anvil.rpc_url, node, engine, poll=30.0)
    assert max(lags) < 2.0, lags
    assert _stored_hashes(engine) == [b["hash"] for b in node.blocks(node.head())]


def test_new_heads_are_pushed_through_the_node_facade(anvil, engine_factory) -> None:
    """`avadata up`'s indexer follows the devnet's facade (/ext/bc/C/rpc): its /ext/bc/C/ws
    hands the subscription on to anvil, so heads are pushed there too."""
    node = Node(anvil.rpc_url)
    send_transfers(node, 2)
    engine = engine_factory()
    facade = FacadeServer([ChainRoute("C", CHAIN, anvil.rpc_url)], port=0)
    facade.start()
    try:
        lags = _pushed_lags(facade.rpc_url("C"), node, engine, poll=30.0)
    finally:
        facade.stop()
    assert max(lags) < 2.0, lags
    assert _stored_hashes(engine) == [b["hash"] for b in node.blocks(node.head())]


def test_without_websocket_the_follower_polls(anvil, engine_factory) -> None:
    node = Node(anvil.rpc_url)
    send_transfers(node, 2)
    engine = engine_factory()

    async def scenario(url: str) -> bool:
        watcher = HeadWatcher(url)
        watching = asyncio.create_task(watcher.run())
        stop = asyncio.Event()
        options = RunOptions(once=False, poll_seconds=0.3, fetch_process=False)
        task = asyncio.create_task(index_chains(engine, [url], options, stop_event=stop))
        await _caught_up(engine, node.head(), 30)
        await asyncio.to_thread(send_transfers, node, 2)
        await _caught_up(engine, node.head(), 10)
        live = watcher.live
        stop.set()
        watching.cancel()
        await task
        return live

    with FaultProxy(anvil.rpc_url, rate=0.0) as proxy:  # HTTP POST only
        assert not asyncio.run(scenario(proxy.url))
    assert _stored_hashes(engine) == [b["hash"] for b in node.blocks(node.head())]


def test_the_watcher_subscribes_on_anvil(anvil) -> None:
    node = Node(anvil.rpc_url)

    async def scenario() -> int | None:
        watcher = HeadWatcher(anvil.rpc_url)
        watching = asyncio.create_task(watcher.run())
        for _ in range(100):
            if watcher.live:
                break
            await asyncio.sleep(0.05)
        assert watcher.live
        await asyncio.to_thread(send_transfers, node, 1)
        await asyncio.wait_for(watcher.moved.wait(), 5)
        watching.cancel()
        return watcher.head

    assert asyncio.run(scenario()) == node.head()
