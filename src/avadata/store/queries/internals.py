"""Internal transactions of an address: the listed frames below the root, newest first.

Stage: store. internal_call_participants holds only the frames the Data API lists
(non-zero-value CALL/CALLCODE, any CREATE*, below the root: the root frame is the transaction
itself). Stores written before the writer left root frames out still hold theirs, so the
depth filter stays. Positions are (block_number, tx_index, trace_index).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Select, and_, bindparam, select

from avadata.store.queries.keyset import AnyRow, newest_in_range, run_in_range
from avadata.store.schema import internal_call_participants, internal_calls


@functools.cache
def _by_address(has_start: bool, paged: bool, has_end: bool) -> Select[Any]:
    p = internal_call_participants.c
    i = internal_calls.c
    stmt = (
        select(*internal_calls.c)
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
    return newest_in_range(
        stmt,
        [p.block_number, p.tx_index, p.trace_index],
        has_start=has_start,
        paged=paged,
        has_end=has_end,
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
    filters = {"chain": chain_id, "address": address}
    return run_in_range(conn, _by_address, filters, start, end, after, limit)
