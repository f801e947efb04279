"""Rows found by their position in a list (one OFFSET query), for tools that reach a deep page
without walking to it: `avadata bench api` signs its deep-page tokens at these positions.

Stage: store. The orders are the list routes' (newest first); the API itself never pages by
OFFSET (keyset.py).
"""

from __future__ import annotations

from sqlalchemy import Connection, func, select

from avadata.store.schema import evm_txs, transfer_participants


def chain_tx_count(conn: Connection, chain_id: int) -> int:
    found = conn.execute(
        select(func.count()).select_from(evm_txs).where(evm_txs.c.chain_id == chain_id)
    ).scalar()
    return int(found or 0)


def latest_tx_at(conn: Connection, chain_id: int, skip: int) -> tuple[int, int] | None:
    """(block_number, tx_index) of the chain's transaction `skip` rows after the newest."""
    t = evm_txs.c
    row = conn.execute(
        select(t.block_number, t.tx_index)
        .where(t.chain_id == chain_id)
        .order_by(t.block_number.desc(), t.tx_index.desc())
        .offset(skip)
        .limit(1)
    ).first()
    return None if row is None else (int(row[0]), int(row[1]))


def transfer_at(
    conn: Connection, chain_id: int, address: str, standard: str, skip: int
) -> tuple[int, int, int] | None:
    """(block_number, log_index, batch_index) of `address`'s `standard` transfer `skip` rows
    after its newest."""
    p = transfer_participants.c
    row = conn.execute(
        select(p.block_number, p.log_index, p.batch_index)
        .where(p.chain_id == chain_id, p.address == address, p.standard == standard)
        .order_by(p.block_number.desc(), p.log_index.desc(), p.batch_index.desc())
        .offset(skip)
        .limit(1)
    ).first()
    return None if row is None else (int(row[0]), int(row[1]), int(row[2]))
