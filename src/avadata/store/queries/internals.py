"""Internal transactions of an address: the listed frames below the root, newest first.

Stage: store. internal_call_participants holds only the frames the Data API lists
(non-zero-value CALL/CALLCODE, any CREATE*); the root frame (depth 0) is the transaction
itself, so it is filtered out here. Positions are (block_number, tx_index, trace_index).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Select, and_, bindparam, select

from avadata.store.queries.keyset import AnyRow, after_desc_param, position_params
from avadata.store.schema import internal_call_participants, internal_calls


@functools.cache
def _by_address(has_start: bool, paged: bool, has_end: bool) -> Select[Any]:
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
        .where(p.chain_id == bindparam("chain"), p.address == bindparam("address"), i.depth > 0)
    )
    if has_start:
        stmt = stmt.where(p.block_number >= bindparam("start"))
    if paged:
        stmt = stmt.where(after_desc_param([p.block_number, p.tx_index, p.trace_index]))
    elif has_end:
        stmt = stmt.where(p.block_number < bindparam("end"))
    return stmt.order_by(p.block_number.desc(), p.tx_index.desc(), p.trace_index.desc()).limit(
        bindparam("limit")
    )


def by_address(
    conn: Connection,
    chain_id: int,
    address: str,
    start: int | None,
    end: int | None,
    after: Sequence[Any] | None,
    limit: int,
) -> Sequence[AnyRow]:
    params: dict[str, Any] = {
        "chain": chain_id,
        "address": address,
        "start": start,
        "end": end,
        "limit": limit,
    }
    if after is not None:
        params.update(position_params(after))
    stmt = _by_address(start is not None, after is not None, end is not None)
    return conn.execute(stmt, params).all()
