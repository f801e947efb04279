"""The EVM pipeline end to end: a seeded anvil chain indexed, then checked against the node.

Every expectation comes from the node (eth_getBlockByNumber, eth_getBlockReceipts, eth_getLogs,
eth_call balanceOf, eth_getBalance at past blocks) or from the traffic generator's ledger, never
from our own tables.
"""

from __future__ import annotations

import asyncio
import random

import pytest
from sqlalchemy import Engine, func, select

from avadata.indexer.fetch.protocol import NativeBalanceMode
from avadata.indexer.run import RunOptions, index_chains
from avadata.store import reads, schema
from tests.support.dump import assert_same_rows, dump
from tests.support.node import Node

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def indexed(devnet_chain, engine_factory):
    engine: Engine = engine_factory()
    asyncio.run(
        index_chains(engine, [devnet_chain.rpc_url], RunOptions(once=True, chunk_blocks=25))
    )
    return devnet_chain, engine


def test_blocks_match_the_node(indexed) -> None:
    chain, engine = indexed
    node = Node(chain.rpc_url)
    head = node.head()
    blocks = node.blocks(head)
    b = schema.evm_blocks
    with engine.connect() as conn:
        rows = conn.execute(
            select(b.c.number, b.c.hash, b.c.parent_hash, b.c.timestamp, b.c.gas_used, b.c.tx_count)
            .where(b.c.chain_id == chain.chain_id)
            .order_by(b.c.number)
        ).all()
    expected = [
        (
            int(x["number"], 16),
            x["hash"],
            x["parentHash"],
            int(x["timestamp"], 16),
            int(x["gasUsed"], 16),
            len(x["transactions"]),
        )
        for x in blocks
    ]
    assert [tuple(r) for r in rows] == expected


def test_transactions_match_receipts(indexed) -> None:
    chain, engine = indexed
    node = Node(chain.rpc_url)
    head = node.head()
    receipts = [
        r
        for rs in node.batch([("eth_getBlockReceipts", [hex(n)]) for n in range(head + 1)])
        for r in rs
    ]
    t = schema.evm_txs
    with engine.connect() as conn:
        rows = conn.execute(
            select(
                t.c.hash,
                t.c.success,
                t.c.gas_used,
                t.c.from_address,
                t.c.to_address,
                t.c.contract_address,
            )
            .where(t.c.chain_id == chain.chain_id)
            .order_by(t.c.block_number, t.c.tx_index)
        ).all()
    expected = [
        (
            r["transactionHash"],
            r["status"] == "0x1",
            int(r["gasUsed"], 16),
            r["from"].lower(),
            (r["to"] or None) and r["to"].lower(),
            (r.get("contractAddress") or None) and r["contractAddress"].lower(),
        )
        for r in receipts
    ]
    assert [tuple(r) for r in rows] == expected
    assert any(not ok for _, ok, *_ in expected), "the traffic includes reverted transactions"


def test_logs_and_transfers_match_the_node(indexed) -> None:
    chain, engine = indexed
    node = Node(chain.rpc_url)
    head = node.head()
    expected = node.token_transfers(head)
    tt = schema.token_transfers
    with engine.connect() as conn:
        rows = conn.execute(
            select(
                tt.c.block_number,
                tt.c.log_index,
                tt.c.batch_index,
                tt.c.token,
                tt.c.from_address,
                tt.c.to_address,
                tt.c.token_id,
                tt.c.value,
            ).where(tt.c.chain_id == chain.chain_id)
        ).all()
        n_logs = conn.execute(select(func.count()).select_from(schema.evm_logs)).scalar_one()
    assert {tuple(r) for r in rows} == expected
    assert len(rows) == len(expected)
    node_logs = node.call("eth_getLogs", [{"fromBlock": "0x0", "toBlock": hex(head)}])
    assert n_logs == len(node_logs)
    standards = {r[6] is None for r in rows}
    assert standards == {True, False}


def test_erc20_balances_at_past_blocks_match_balance_of(indexed) -> None:
    chain, engine = indexed
    node = Node(chain.rpc_url)
    head = node.head()
    rng = random.Random(3)
    tt = schema.token_transfers
    with engine.connect() as conn:
        pairs = conn.execute(
            select(tt.c.token, tt.c.to_address).where(tt.c.standard == "ERC-20").distinct()
        ).all()
    checked = 0
    for token, holder in rng.sample(pairs, min(25, len(pairs))):
        for block in sorted(rng.sample(range(head + 1), 4)) + [head]:
            with engine.connect() as conn:
                ours = reads.erc20_balance(conn, chain.chain_id, token, holder, block)
            assert ours == node.balance_of(token, holder, block), (token, holder, block)
            checked += 1
    assert checked >= 50


def test_native_balance_snapshots_at_the_head_are_the_nodes(indexed) -> None:
    """The default mode: each touched address's balance at the head the indexer saw."""
    chain, engine = indexed
    node = Node(chain.rpc_url)
    nb, t = schema.native_balances, schema.evm_txs
    with engine.connect() as conn:
        rows = conn.execute(select(nb.c.address, nb.c.block_number, nb.c.balance)).all()
        senders = set(conn.execute(select(t.c.from_address).distinct()).scalars())
    assert senders <= {r[0] for r in rows}
    for address, block, balance in random.Random(2).sample(rows, 40):
        assert balance == node.native_balance(address, block), (address, block)


@pytest.fixture(scope="module")
def indexed_history(devnet_chain, engine_factory):
    engine: Engine = engine_factory()
    options = RunOptions(once=True, chunk_blocks=25, native_balances=NativeBalanceMode.HISTORY)
    asyncio.run(index_chains(engine, [devnet_chain.rpc_url], options))
    return devnet_chain, engine


def test_native_balances_at_past_blocks_match_get_balance(indexed_history) -> None:
    """History mode (an archive node): exact at every block that touched the address."""
    chain, engine = indexed_history
    node = Node(chain.rpc_url)
    head = node.head()
    rng = random.Random(5)
    t = schema.evm_txs
    with engine.connect() as conn:
        senders = [r[0] for r in conn.execute(select(t.c.from_address).distinct())]
    nb = schema.native_balances
    checked = 0
    for addr in rng.sample(senders, min(15, len(senders))):
        with engine.connect() as conn:
            first = conn.execute(
                select(func.min(nb.c.block_number)).where(
                    nb.c.chain_id == chain.chain_id, nb.c.address == addr
                )
            ).scalar_one()
        assert first is not None, f"{addr} sent a transaction, so its balance was recorded"
        blocks = sorted(rng.sample(range(first, head + 1), min(3, head + 1 - first))) + [head]
        for block in blocks:
            with engine.connect() as conn:
                ours = reads.native_balance(conn, chain.chain_id, addr, block)
            assert ours == node.native_balance(addr, block), (addr, block)
            checked += 1
    assert checked >= 30


def test_contract_creations_match_the_ledger(indexed) -> None:
    chain, engine = indexed
    c = schema.contracts
    with engine.connect() as conn:
        rows = conn.execute(
            select(c.c.address, c.c.deployer, c.c.deployer_contract).where(
                c.c.chain_id == chain.chain_id
            )
        ).all()
    ours = {r[0]: (r[1], r[2]) for r in rows}
    ledger = {x.address: (x.deployer, x.factory) for x in chain.ledger.contracts}
    assert ours == ledger
    assert any(f is not None for _, f in ledger.values()), "factory creations are present"


def test_reindexing_changes_nothing(indexed) -> None:
    chain, engine = indexed
    before = dump(engine)
    asyncio.run(index_chains(engine, [chain.rpc_url], RunOptions(once=True, chunk_blocks=25)))
    assert_same_rows(dump(engine), before)
