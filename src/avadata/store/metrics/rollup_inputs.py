"""Stored rows read back as rollup input: what `metrics rebuild` and the materialisation of an
aggregate scope roll up (the same `changes_of` the indexer's batches go through).

Stage: store (reads blocks, txs, transfers and contracts for the metrics rollup).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from sqlalchemy import Connection, select

from avadata.metrics.rollup import RollupChanges, changes_of
from avadata.store.schema import contracts, evm_blocks, evm_txs, token_transfers


@dataclass(frozen=True, slots=True)
class _Block:
    number: int
    timestamp: int
    time_ms: int | None


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


def stored_changes(
    conn: Connection, chain_id: int, chunk_blocks: int = 5_000
) -> Iterator[tuple[RollupChanges, int]]:
    """(changes, transactions) per run of `chunk_blocks` stored blocks of the chain, in order."""
    b = evm_blocks.c
    numbers = (
        conn.execute(select(b.number).where(b.chain_id == chain_id).order_by(b.number))
        .scalars()
        .all()
    )
    for i in range(0, len(numbers), chunk_blocks):
        part = numbers[i : i + chunk_blocks]
        yield _changes(conn, chain_id, int(part[0]), int(part[-1]))


def _changes(conn: Connection, chain_id: int, lo: int, hi: int) -> tuple[RollupChanges, int]:
    b, t, tr, c = evm_blocks.c, evm_txs.c, token_transfers.c, contracts.c
    blocks = [
        _Block(int(r.number), int(r.timestamp), None if r.time_ms is None else int(r.time_ms))
        for r in conn.execute(
            select(b.number, b.timestamp, b.time_ms).where(
                b.chain_id == chain_id, b.number.between(lo, hi)
            )
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
    return changes_of(chain_id, blocks, txs, transfers, creations), len(txs)
