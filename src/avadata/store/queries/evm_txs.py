"""Transactions: latest of a chain (optionally by status) and those of one block.

Stage: store. Positions are (block_number, tx_index).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, select

from avadata.store.queries.keyset import AnyRow, after_asc, after_desc
from avadata.store.schema import evm_txs


def list_latest(
    conn: Connection,
    chain_id: int,
    success: bool | None,
    after: Sequence[Any] | None,
    limit: int,
) -> Sequence[AnyRow]:
    """Newest first; with `success` set, the (chain_id, success, block, index) index is used."""
    c = evm_txs.c
    stmt = select(evm_txs).where(c.chain_id == chain_id)
    if success is not None:
        stmt = stmt.where(c.success == success)
    if after is not None:
        stmt = stmt.where(after_desc([c.block_number, c.tx_index], after))
    stmt = stmt.order_by(c.block_number.desc(), c.tx_index.desc()).limit(limit)
    return conn.execute(stmt).all()


def list_in_block(
    conn: Connection,
    chain_id: int,
    number: int,
    after: Sequence[Any] | None,
    limit: int | None,
) -> Sequence[AnyRow]:
    """The block's transactions in block order; `limit` None returns them all."""
    c = evm_txs.c
    stmt = select(evm_txs).where(c.chain_id == chain_id, c.block_number == number)
    if after is not None:
        stmt = stmt.where(after_asc([c.tx_index], after))
    stmt = stmt.order_by(c.tx_index)
    if limit is not None:
        stmt = stmt.limit(limit)
    return conn.execute(stmt).all()
