"""Internal transactions of an address: the listed frames below the root, newest first.

Stage: store. internal_call_participants holds only the frames the Data API lists
(non-zero-value CALL/CALLCODE, any CREATE*, below the root: the root frame is the transaction
itself). Stores written before the writer left root frames out still hold theirs, so the
depth filter stays. Positions are (block_number, tx_index, trace_index).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Select, bindparam, select

from avadata.store.queries.keyset import (
    AnyRow,
    newest_in_range,
    participants_join,
    run_in_range,
)
from avadata.store.schema import internal_call_participants, internal_calls

# A frame's key, shared with its participants (chain first).
_KEY = ("chain_id", "block_number", "tx_index", "trace_index")


@newest_in_range
def _by_address() -> tuple[Select[Any], list[Any], list[Any]]:
    p = internal_call_participants.c
    i = internal_calls.c
    stmt = (
        select(*internal_calls.c)
        .select_from(participants_join(internal_call_participants, internal_calls, _KEY))
        .where(p.chain_id == bindparam("chain"), p.address == bindparam("address"), i.depth > 0)
    )
    return stmt, [p[k] for k in _KEY[1:]], [i[k] for k in _KEY[1:]]


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
