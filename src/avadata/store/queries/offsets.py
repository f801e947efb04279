"""Rows found by their position in a list (one OFFSET query), for tools that reach a deep page
without walking to it: `avadata bench api` signs its deep-page tokens at these positions.

Stage: store. The orders are the list routes' (newest first); the API itself never pages by
OFFSET (keyset.py).
"""

from __future__ import annotations

from sqlalchemy import Connection, func, select

from avadata.store.schema import (
    evm_blocks,
    evm_txs,
    primary_address_txs,
    primary_address_utxos,
    primary_cursors,
    primary_txs,
    transfer_participants,
)


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


def primary_containers(conn: Connection) -> dict[str, int]:
    """Containers indexed per primary-network chain (the cursor's index plus one)."""
    cur = primary_cursors.c
    rows = conn.execute(select(cur.blockchain_id, cur.container_index))
    return {str(b): int(i) + 1 for b, i in rows}


def primary_tx_counts(conn: Connection) -> dict[str, int]:
    """Transactions stored per primary-network chain."""
    t = primary_txs.c
    rows = conn.execute(select(t.blockchain_id, func.count()).group_by(t.blockchain_id))
    return {str(b): int(n) for b, n in rows}


def address_utxo_count(conn: Connection, address: str) -> int:
    """UTXOs linked to one primary-network address, on every chain."""
    a = primary_address_utxos.c
    found = conn.execute(
        select(func.count()).select_from(primary_address_utxos).where(a.address == address)
    ).scalar()
    return int(found or 0)


def address_tx_at(conn: Connection, address: str, chain: str, skip: int) -> tuple[int, int, int]:
    """(timestamp, block, tx index) of `address`'s transaction on `chain` `skip` rows after
    its newest, in the transactions route's order."""
    x = primary_address_txs.c
    row = conn.execute(
        select(x.block_timestamp, x.block_number, x.tx_index)
        .where(x.address == address, x.blockchain_id == chain)
        .order_by(x.block_timestamp.desc(), x.block_number.desc(), x.tx_index.desc())
        .offset(skip)
        .limit(1)
    ).one()
    return int(row[0]), int(row[1]), int(row[2])


def address_utxo_at(conn: Connection, address: str, chain: str, skip: int) -> tuple[int, str]:
    """(timestamp, UTXO ID) of `address`'s UTXO on `chain` `skip` rows after its newest, in the
    UTXOs route's order."""
    a = primary_address_utxos.c
    row = conn.execute(
        select(a.block_timestamp, a.utxo_id)
        .where(a.address == address, a.chain_id == chain)
        .order_by(a.block_timestamp.desc(), a.utxo_id.desc())
        .offset(skip)
        .limit(1)
    ).one()
    return int(row[0]), str(row[1])


def address_evm_tx_at(
    conn: Connection, chain_id: int, address: str, skip: int
) -> tuple[int, int] | None:
    """(block_number, tx_index) of the transaction `address` sent or received `skip` rows after
    its newest, in the address-transactions routes' order."""
    t = evm_txs.c
    row = conn.execute(
        select(t.block_number, t.tx_index)
        .where(t.chain_id == chain_id, (t.from_address == address) | (t.to_address == address))
        .order_by(t.block_number.desc(), t.tx_index.desc())
        .offset(skip)
        .limit(1)
    ).first()
    return None if row is None else (int(row[0]), int(row[1]))


def block_at(conn: Connection, chain_id: int, skip: int) -> tuple[int] | None:
    """(number,) of the chain's block `skip` rows after its newest."""
    b = evm_blocks.c
    row = conn.execute(
        select(b.number)
        .where(b.chain_id == chain_id)
        .order_by(b.number.desc())
        .offset(skip)
        .limit(1)
    ).first()
    return None if row is None else (int(row[0]),)
