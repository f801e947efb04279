"""Both trace styles decode to the same call trees, and a node without tracers is said to be one.

anvil answers geth's callTracer and parity's trace_block from two separate tracers: decoding
each independently and comparing the frames checks both decoders against a second computation.
"""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, select

from avadata.decode.evm import to_batch
from avadata.indexer.run import RunOptions, index_chains
from avadata.records import RawBlock, TraceStyle
from avadata.store import schema
from tests.support.fault_proxy import FaultProxy
from tests.support.node import Node

pytestmark = pytest.mark.e2e


def _frames(batch):
    return [
        (
            c.block_number,
            c.tx_index,
            c.trace_index,
            c.parent_index,
            c.depth,
            c.call_type,
            c.from_address,
            c.to_address,
            c.value,
            c.reverted,
        )
        for c in batch.internal_calls
    ]


def test_geth_and_parity_traces_give_the_same_frames(devnet_chain) -> None:
    node = Node(devnet_chain.rpc_url)
    numbers = [n for n in range(1, devnet_chain.head + 1, 7)][:30]
    blocks = node.batch([("eth_getBlockByNumber", [hex(n), True]) for n in numbers])
    receipts = node.batch([("eth_getBlockReceipts", [hex(n)]) for n in numbers])
    geth = node.batch(
        [("debug_traceBlockByNumber", [hex(n), {"tracer": "callTracer"}]) for n in numbers]
    )
    parity = node.batch([("trace_block", [hex(n)]) for n in numbers])
    a = to_batch(
        devnet_chain.chain_id,
        [
            RawBlock(b, r, TraceStyle.GETH, t)
            for b, r, t in zip(blocks, receipts, geth, strict=True)
        ],
    )
    b = to_batch(
        devnet_chain.chain_id,
        [
            RawBlock(b, r, TraceStyle.PARITY, t)
            for b, r, t in zip(blocks, receipts, parity, strict=True)
        ],
    )
    assert any(c.depth > 1 for c in a.internal_calls)  # nested frames exist
    assert _frames(a) == _frames(b)
    assert a.contracts == b.contracts
    assert any(c.call_type == "CREATE2" for c in a.internal_calls)
    assert any(c.reverted and c.depth > 0 for c in a.internal_calls)


def test_every_frame_is_kept_but_a_plain_transfers_only_one(devnet_chain) -> None:
    """The node's own traces and receipts say which transactions moved value to an address
    that ran no code (one frame, 21,000 gas): those keep no frame, every other keeps all."""
    node = Node(devnet_chain.rpc_url)
    numbers = list(range(1, devnet_chain.head + 1))
    blocks = node.batch([("eth_getBlockByNumber", [hex(n), True]) for n in numbers])
    receipts = node.batch([("eth_getBlockReceipts", [hex(n)]) for n in numbers])
    parity = node.batch([("trace_block", [hex(n)]) for n in numbers])
    batch = to_batch(
        devnet_chain.chain_id,
        [
            RawBlock(b, r, TraceStyle.PARITY, t)
            for b, r, t in zip(blocks, receipts, parity, strict=True)
        ],
    )
    kept: dict[tuple[int, int], int] = {}
    for c in batch.internal_calls:
        kept[(c.block_number, c.tx_index)] = kept.get((c.block_number, c.tx_index), 0) + 1
    plain = 0
    for n, rs, traces in zip(numbers, receipts, parity, strict=True):
        for r in rs:
            i = int(r["transactionIndex"], 16)
            frames = [t for t in traces if t.get("transactionPosition") == i]
            if r["gasUsed"] == hex(21_000) and r["status"] == "0x1" and len(frames) == 1:
                plain += 1
                assert (n, i) not in kept
            else:
                assert kept.get((n, i)) == len(frames), (n, i)
    assert 0 < plain < sum(len(rs) for rs in receipts)


def test_a_node_without_tracers_marks_the_chain(devnet_chain, engine_factory) -> None:
    engine = engine_factory()
    refuse = frozenset({"debug_traceBlockByNumber", "trace_block"})
    with FaultProxy(devnet_chain.rpc_url, rate=0.0, refuse=refuse) as proxy:
        asyncio.run(index_chains(engine, [proxy.url], RunOptions(once=True, chunk_blocks=50)))
    with engine.connect() as conn:
        has_traces = conn.execute(select(schema.chains.c.has_traces)).scalar_one()
        calls = conn.execute(select(func.count()).select_from(schema.internal_calls)).scalar_one()
        created = conn.execute(select(schema.contracts.c.address)).scalars().all()
    assert has_traces is False or has_traces == 0
    assert calls == 0
    # Without traces only top-level deployments are known: exactly the ledger's EOA deployments.
    direct = {c.address for c in devnet_chain.ledger.contracts if c.factory is None}
    assert set(created) == direct
