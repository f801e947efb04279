"""Follow mode: new blocks are picked up; a reorganised node stops the indexer loudly."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import select

from avadata.devnet.anvil import AnvilOptions, start_anvil
from avadata.errors import ContinuityError
from avadata.indexer.run import RunOptions, index_chains
from avadata.store import cursors, schema
from tests.support.node import Node

pytestmark = pytest.mark.e2e

CHAIN = 99977


@pytest.fixture
def anvil():
    proc = start_anvil(AnvilOptions(chain_id=CHAIN, automine=True))
    yield proc
    proc.stop()


def send_transfers(node: Node, n: int) -> None:
    accounts = node.call("eth_accounts", [])
    for i in range(n):
        node.call(
            "eth_sendTransaction",
            [{"from": accounts[i % 3], "to": accounts[3 + i % 5], "value": hex(10**15 + i)}],
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
            cur = cursors.get_cursor(engine, CHAIN)
            if cur is not None and cur.block_number == head:
                break
            await asyncio.sleep(0.1)
        stop.set()
        await task

    asyncio.run(scenario())
    with engine.connect() as conn:
        hashes = (
            conn.execute(
                select(schema.evm_blocks.c.hash)
                .where(schema.evm_blocks.c.chain_id == CHAIN)
                .order_by(schema.evm_blocks.c.number)
            )
            .scalars()
            .all()
        )
    assert hashes == [b["hash"] for b in node.blocks(node.head())]


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
