"""Blocks of a chain, newest first (the primary key backwards), and block-id resolution.

Stage: store.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Select, bindparam, func, select

from avadata.store.queries.keyset import (
    AnyRow,
    after_desc_param,
    fetch,
    fetch_scalar,
    position_params,
)
from avadata.store.schema import evm_blocks


@functools.cache
def _list(paged: bool) -> Select[Any]:
    c = evm_blocks.c
    stmt = select(*evm_blocks.c).where(c.chain_id == bindparam("chain"))
    if paged:
        stmt = stmt.where(after_desc_param([c.number]))
    return stmt.order_by(c.number.desc()).limit(bindparam("limit"))


def list_blocks(
    conn: Connection, chain_id: int, after: Sequence[Any] | None, limit: int
) -> Sequence[AnyRow]:
    """Up to `limit` blocks below position (number,), newest first."""
    params: dict[str, Any] = {"chain": chain_id, "limit": limit}
    if after is not None:
        params.update(position_params(after))
    return fetch(conn, _list(after is not None), params)


_B = evm_blocks.c
_LATEST = select(func.max(_B.number)).where(_B.chain_id == bindparam("chain"))


def head_of_chain() -> Any:
    """The highest stored block number of chain :chain, as a scalar subquery (a backwards
    probe of the primary key): for statements that read at the head by default, so that
    finding it costs no statement of its own."""
    return _LATEST.scalar_subquery()


# A block by number or hash, every column: getBlock's answer in one statement (the block
# transactions route reads its number, hash and time from the same row).
_BY_NUMBER = select(*evm_blocks.c).where(
    _B.chain_id == bindparam("chain"), _B.number == bindparam("number")
)
_BY_HASH = select(*evm_blocks.c).where(
    _B.chain_id == bindparam("chain"), _B.hash == bindparam("hash")
)


def find_block(
    conn: Connection, chain_id: int, *, number: int | None = None, block_hash: str | None = None
) -> AnyRow | None:
    """The stored block with this number or (lower-case) hash, every column; None if absent."""
    if number is not None:
        rows = fetch(conn, _BY_NUMBER, {"chain": chain_id, "number": number})
    elif block_hash is not None:
        rows = fetch(conn, _BY_HASH, {"chain": chain_id, "hash": block_hash})
    else:
        raise ValueError("give number or block_hash")
    return rows[0] if rows else None


def latest_number(conn: Connection, chain_id: int) -> int | None:
    """The highest stored block number of the chain (a backwards index probe)."""
    found = fetch_scalar(conn, _LATEST, {"chain": chain_id})
    return None if found is None else int(found)
