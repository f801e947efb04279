"""Internal transactions of an address: the listed frames below the root, newest first.

Stage: store. internal_call_participants holds only the frames the Data API lists
(non-zero-value CALL/CALLCODE, any CREATE*); the root frame (depth 0) is the transaction
itself, so it is filtered out here. Positions are (block_number, tx_index, trace_index).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, and_, select

from avadata.store.queries.keyset import AnyRow, after_desc
from avadata.store.schema import internal_call_participants, internal_calls


def by_address(
    conn: Connection,
    chain_id: int,
    address: str,
    start: int | None,
    end: int | None,
    after: Sequence[Any] | None,
    limit: int,
) -> Sequence[AnyRow]:
    p = internal_call_participants.c
    i = internal_calls.c
    stmt = (
        select(internal_calls)
        .select_from(
            internal_call_participants.join(
                internal_calls,
                and_(
                    i.chain_id == p.chain_id,
                    i.block_number == p.block_number,
                    i.tx_index == p.tx_index,
                    i.trace_index == p.trace_index,
                ),
            )
        )
        .where(p.chain_id == chain_id, p.address == address, i.depth > 0)
    )
    if start is not None:
        stmt = stmt.where(p.block_number >= start)
    if after is not None:
        stmt = stmt.where(after_desc([p.block_number, p.tx_index, p.trace_index], after))
    elif end is not None:
        stmt = stmt.where(p.block_number < end)
    stmt = stmt.order_by(p.block_number.desc(), p.tx_index.desc(), p.trace_index.desc()).limit(
        limit
    )
    return conn.execute(stmt).all()
