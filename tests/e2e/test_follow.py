"""Follow mode: new blocks are picked up; a reorganised node stops the indexer loudly."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import time

import pytest
from sqlalchemy import select

from avadata.devnet.evm.anvil import AnvilOptions, start_anvil
from avadata.errors import ContinuityError
from avadata.indexer.run import RunOptions, index_chains
from avadata.sources.jsonrpc import RetryPolicy
from avadata.store import cursors, schema
from tests.support.fault_proxy import FaultProxy
from tests.support.node import Node

pytestmark = pytest.mark.e2e

CHAIN = 99977


@pytest.fixture
def anvil():
    proc = start_anvil(AnvilOptions(chain_id=CHAIN, automine=True))
    yield proc
    proc.stop()


def send_transfers(node: Node, n: int) -> None:
    """`n` transfers, each mined before this returns (anvil mines a sent transaction a moment
    later: a head read right after the send could miss its block)."""
    accounts = node.call("eth_accounts", [])
    for i in range(n):
        tx = node.call(
            "eth_sendTransaction",
            [{"from": accounts[i % 3], "to": accounts[3 + i % 5], "value": hex(10**15 + i)}],
        )
        for _ in range(200):
            if node.call("eth_getTransactionReceipt", [tx]) is not None:
                break
            time.sleep(0.01)
        else:
            raise AssertionError(f"transfer {tx} was not mined")


def _stored_hashes(engine) -> list[str]:
    with engine.connect() as conn:
        return list(
            conn.execute(
                select(schema.evm_blocks.c.hash)
                .where(schema.evm_blocks.c.chain_id == CHAIN)
                .order_by(schema.evm_blocks.c.number)
            ).scalars()
        )


def test_follow_indexes_new_blocks_as_they_come(anvil, engine_factory) -> None:
    node = Node(anvil.rpc_url)
    send_transfers(node, 3)
    engine = engine_factory()

    async def scenario() -> None:
        stop = asyncio.Event()
        task = asyncio.create_task(
            index_chains(
                engine, [anvil.rpc_url], RunOptions(once=False, poll_seconds=0.2), stop_event=stop
            )
        )
        for _ in range(3):
            await asyncio.to_thread(send_transfers, node, 2)
            await asyncio.sleep(0.3)
        head = node.head()
        for _ in range(100):
            # Off the loop: a writer engine waits for the indexer's open transaction.
            cur = await asyncio.to_thread(cursors.get_cursor, engine, CHAIN)
            if cur is not None and cur.block_number >= head:
                break
            await asyncio.sleep(0.1)
        stop.set()
        await task

    asyncio.run(scenario())
    assert _stored_hashes(engine) == [b["hash"] for b in node.blocks(node.head())]


def test_a_reorg_stops_the_indexer_and_writes_nothing_more(anvil, engine_factory) -> None:
    node = Node(anvil.rpc_url)
    send_transfers(node, 2)
    snapshot = node.call("evm_snapshot", [])
    send_transfers(node, 3)
    engine = engine_factory()
    asyncio.run(index_chains(engine, [anvil.rpc_url], RunOptions(once=True)))
    before = cursors.get_cursor(engine, CHAIN)
    assert before is not None and before.block_number == 5
    node.call("evm_revert", [snapshot])
    send_transfers(node, 5)  # a different history from block 3 on, longer than ours
    with pytest.raises(ContinuityError, match="reorganised"):
        asyncio.run(index_chains(engine, [anvil.rpc_url], RunOptions(once=True)))
    assert cursors.get_cursor(engine, CHAIN) == before


def test_a_node_down_past_the_retries_does_not_end_the_follower(
    anvil, engine_factory, caplog
) -> None:
    """The node behind a proxy goes away for longer than a request's retries (a restart) while
    blocks are mined, then comes back; later the fetch process is killed. The follower logs
    each failure, keeps trying, and ends up with every block of the node."""
    node = Node(anvil.rpc_url)
    send_transfers(node, 3)
    engine = engine_factory()
    options = RunOptions(
        once=False,
        poll_seconds=0.2,
        timeout=2.0,
        retry=RetryPolicy(max_attempts=2, initial_delay=0.05, max_delay=0.1),
    )

    async def caught_up(head: int) -> None:
        for _ in range(300):
            # Off the loop: a writer engine waits for the indexer's open transaction.
            cur = await asyncio.to_thread(cursors.get_cursor, engine, CHAIN)
            if cur is not None and cur.block_number >= head:
                return
            await asyncio.sleep(0.1)
        raise AssertionError(f"the follower did not reach block {head}")

    async def scenario(proxy: FaultProxy) -> None:
        stop = asyncio.Event()
        task = asyncio.create_task(index_chains(engine, [proxy.url], options, stop_event=stop))
        await caught_up(node.head())
        proxy.down = True
        await asyncio.to_thread(send_transfers, node, 2)
        await asyncio.sleep(1.5)  # several rounds of two attempts each
        assert not task.done()
        proxy.down = False
        await asyncio.to_thread(send_transfers, node, 2)
        await caught_up(node.head())
        # The fetch process killed (the OOM killer): the next range starts another one.
        for child in multiprocessing.active_children():
            if child.name.startswith("avadata-fetch-"):
                os.kill(child.pid, signal.SIGKILL)
        await asyncio.to_thread(send_transfers, node, 2)
        await caught_up(node.head())
        assert not task.done()
        stop.set()
        await task

    with caplog.at_level(logging.WARNING, logger="avadata.indexer.evm"):
        with FaultProxy(anvil.rpc_url, rate=0.0) as proxy:
            asyncio.run(scenario(proxy))
    messages = [r.getMessage() for r in caplog.records if "trying again" in r.getMessage()]
    assert any("503" in m for m in messages), messages
    assert any("fetch process ended" in m for m in messages), messages
    assert _stored_hashes(engine) == [b["hash"] for b in node.blocks(node.head())]
