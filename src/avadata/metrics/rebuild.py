"""Recompute every metric bucket from the stored rows: `avadata metrics rebuild`.

Stage: metrics. Reads blocks, transactions, transfers and contracts back from the store and
feeds them, block range by block range, through the same rollup and applier the indexer uses,
after emptying the rollup tables, all in ONE transaction: readers see the old buckets or the
new ones, never a half-built mix. Page tokens are left alone.

Use it after indexing without the applier, after changing a chain's network, or to check the
rollups: a rebuild of a consistent store changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, Engine, delete, select

from avadata.metrics.applier import apply_changes
from avadata.metrics.rollup import changes_of
from avadata.store.schema import (
    chains,
    contracts,
    evm_blocks,
    evm_txs,
    metric_blocks,
    metric_counts,
    metric_first_seen,
    metric_members,
    metric_scopes,
    metric_sums,
    token_transfers,
)

ROLLUP_TABLES = (
    metric_blocks,
    metric_sums,
    metric_members,
    metric_counts,
    metric_first_seen,
    metric_scopes,
)


@dataclass(frozen=True, slots=True)
class _Block:
    number: int
    timestamp: int


@dataclass(frozen=True, slots=True)
class _Tx:
    block_number: int
    block_timestamp: int
    from_address: str
    to_address: str | None
    gas_used: int
    gas_price: int


@dataclass(frozen=True, slots=True)
class _Transfer:
    block_timestamp: int
    from_address: str
    to_address: str


@dataclass(frozen=True, slots=True)
class _Creation:
    block_number: int
    block_timestamp: int
    deployer: str
    deployer_contract: str | None


@dataclass(slots=True)
class RebuildStats:
    chains: int = 0
    blocks: int = 0
    transactions: int = 0


def rebuild(engine: Engine, *, chunk_blocks: int = 5_000) -> RebuildStats:
    """Empty the rollup tables and roll every stored block up again, in one transaction."""
    with engine.begin() as conn:
        return rebuild_in(conn, chunk_blocks=chunk_blocks)


def rebuild_in(conn: Connection, *, chunk_blocks: int = 5_000) -> RebuildStats:
    stats = RebuildStats()
    for table in ROLLUP_TABLES:
        conn.execute(delete(table))
    chain_ids = [
        int(r[0]) for r in conn.execute(select(chains.c.chain_id).order_by(chains.c.chain_id))
    ]
    for chain_id in chain_ids:
        stats.chains += 1
        b = evm_blocks.c
        numbers = conn.execute(
            select(b.number).where(b.chain_id == chain_id).order_by(b.number)
        ).scalars()
        first: int | None = None
        last = -1
        for n in numbers:
            if first is None:
                first = n
            last = n
            if n - first + 1 >= chunk_blocks:
                _roll(conn, chain_id, first, last, stats)
                first = None
        if first is not None:
            _roll(conn, chain_id, first, last, stats)
    return stats


def _roll(conn: Connection, chain_id: int, lo: int, hi: int, stats: RebuildStats) -> None:
    b, t, tr, c = evm_blocks.c, evm_txs.c, token_transfers.c, contracts.c
    blocks = [
        _Block(int(r.number), int(r.timestamp))
        for r in conn.execute(
            select(b.number, b.timestamp).where(b.chain_id == chain_id, b.number.between(lo, hi))
        )
    ]
    txs = [
        _Tx(
            int(r.block_number),
            int(r.block_timestamp),
            r.from_address,
            r.to_address,
            int(r.gas_used),
            int(r.gas_price),
        )
        for r in conn.execute(
            select(
                t.block_number,
                t.block_timestamp,
                t.from_address,
                t.to_address,
                t.gas_used,
                t.gas_price,
            ).where(t.chain_id == chain_id, t.block_number.between(lo, hi))
        )
    ]
    transfers = [
        _Transfer(int(r.block_timestamp), r.from_address, r.to_address)
        for r in conn.execute(
            select(tr.block_timestamp, tr.from_address, tr.to_address).where(
                tr.chain_id == chain_id, tr.block_number.between(lo, hi)
            )
        )
    ]
    creations = [
        _Creation(int(r.block_number), int(r.block_timestamp), r.deployer, r.deployer_contract)
        for r in conn.execute(
            select(c.block_number, c.block_timestamp, c.deployer, c.deployer_contract).where(
                c.chain_id == chain_id, c.block_number.between(lo, hi)
            )
        )
    ]
    stats.blocks += len(blocks)
    stats.transactions += len(txs)
    apply_changes(conn, changes_of(chain_id, blocks, txs, transfers, creations))
