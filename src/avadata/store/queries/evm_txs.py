"""Transactions: latest of a chain (optionally by status) and those of one block.

Stage: store. Positions are (block_number, tx_index). Statements are built once per shape
(see keyset.py).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Select, and_, bindparam, false, select, true

from avadata.store.queries.keyset import (
    AnyRow,
    after_desc_param,
    fetch,
    position_params,
)
from avadata.store.schema import evm_blocks, evm_txs

_C = evm_txs.c


@functools.cache
def _latest(success: bool | None, paged: bool) -> Select[Any]:
    stmt = select(*evm_txs.c).where(_C.chain_id == bindparam("chain"))
    if success is not None:
        # A literal, not a parameter, so that every plan can use the failed ones' partial
        # index (schema.py), PostgreSQL's generic plans of prepared statements included.
        stmt = stmt.where(_C.success == (true() if success else false()))
    if paged:
        stmt = stmt.where(after_desc_param([_C.block_number, _C.tx_index]))
    return stmt.order_by(_C.block_number.desc(), _C.tx_index.desc()).limit(bindparam("limit"))


def list_latest(
    conn: Connection,
    chain_id: int,
    success: bool | None,
    after: Sequence[Any] | None,
    limit: int,
) -> Sequence[AnyRow]:
    """Newest first, optionally by status: the failed ones through their partial index, the
    successful ones along the primary key (skipping the failed)."""
    params: dict[str, Any] = {"chain": chain_id, "limit": limit}
    if after is not None:
        params.update(position_params(after))
    return fetch(conn, _latest(success, after is not None), params)


@functools.cache
def _in_block(paged: bool, limited: bool) -> Select[Any]:
    stmt = select(*evm_txs.c).where(
        _C.chain_id == bindparam("chain"), _C.block_number == bindparam("number")
    )
    if paged:
        stmt = stmt.where(_C.tx_index > bindparam("k0", type_=_C.tx_index.type))
    stmt = stmt.order_by(_C.tx_index)
    return stmt.limit(bindparam("limit")) if limited else stmt


def list_in_block(
    conn: Connection,
    chain_id: int,
    number: int,
    after: Sequence[Any] | None,
    limit: int | None,
) -> Sequence[AnyRow]:
    """The block's transactions in block order; `limit` None returns them all."""
    params: dict[str, Any] = {"chain": chain_id, "number": number, "limit": limit}
    if after is not None:
        params["k0"] = int(after[0])
    return fetch(conn, _in_block(after is not None, limit is not None), params)


# What differs between the transactions of one block: a whole block's page takes the block's
# own columns from its header instead (a block of 50 reads 200 values fewer from SQLite).
_BLOCK_COLUMNS = ("chain_id", "block_number", "block_hash", "block_timestamp")
_BK = evm_blocks.c


@functools.cache
def _whole_block(by_hash: bool) -> Select[Any]:
    """The block's header columns, then each transaction's other columns in block order: one
    row per transaction, or one with NULL transaction columns for a block without any."""
    bodies = [c for c in evm_txs.c if c.name not in _BLOCK_COLUMNS]
    stmt = (
        select(
            _BK.number.label("block_number"),
            _BK.hash.label("block_hash"),
            _BK.timestamp.label("block_timestamp"),
            *bodies,
        )
        .select_from(
            evm_blocks.outerjoin(
                evm_txs, and_(_C.chain_id == _BK.chain_id, _C.block_number == _BK.number)
            )
        )
        .where(_BK.chain_id == bindparam("chain"))
    )
    which = _BK.hash == bindparam("hash") if by_hash else _BK.number == bindparam("number")
    return stmt.where(which).order_by(_C.tx_index)


def whole_block(
    conn: Connection, chain_id: int, *, number: int | None = None, block_hash: str | None = None
) -> tuple[AnyRow, list[AnyRow]] | None:
    """The block with this number or (lower-case) hash: a row of its number, hash and time
    (block_number, block_hash, block_timestamp) and its transactions in block order, read in
    one statement (each row carries those three columns too); None when not stored."""
    params = {"chain": chain_id, "number": number, "hash": block_hash}
    rows = fetch(conn, _whole_block(block_hash is not None), params)
    if not rows:
        return None
    return rows[0], [r for r in rows if r.hash is not None]
