"""The transactions an address sent or received (evm_txs), newest or oldest first.

Stage: store. Positions are (block_number, tx_index). The page is one compound statement: the
sender's index range and the receiver's, each already in page order, merged by UNION ALL under
the page's ORDER BY and LIMIT: SQLite merges the two ranges as co-routines and stops after
the page; PostgreSQL sorts what the two arms give, each arm then ordered and limited to the
page itself (dialect.bounds_on_every_input). Both read a page's worth of rows, however many
transactions the address has. A
transaction to oneself comes from both ranges; the caller's rows are deduplicated here, which
is why twice the page is asked for. Block ranges are [start, end).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from sqlalchemy import (
    ColumnElement,
    CompoundSelect,
    Connection,
    asc,
    bindparam,
    desc,
    select,
    tuple_,
    union_all,
)

from avadata.store.dialect import bounds_on_every_input
from avadata.store.queries.keyset import AnyRow, fetch, position_params
from avadata.store.schema import evm_txs

_C = evm_txs.c
_KEYS = (_C.block_number, _C.tx_index)


def _arm(column: Any, has_start: bool, paged: bool, has_end: bool, ascending: bool) -> Any:
    conds: list[ColumnElement[bool]] = [
        _C.chain_id == bindparam("chain"),
        column == bindparam("address"),
    ]
    if has_start:
        conds.append(_C.block_number >= bindparam("start"))
    if has_end:
        conds.append(_C.block_number < bindparam("end"))
    if paged:
        at = tuple_(*(bindparam(f"k{i}", type_=k.type) for i, k in enumerate(_KEYS)))
        conds.append(tuple_(*_KEYS) > at if ascending else tuple_(*_KEYS) < at)
    return select(*evm_txs.c).where(*conds)


@functools.cache
def _shape(
    has_start: bool, paged: bool, has_end: bool, ascending: bool, bounded: bool
) -> CompoundSelect[Any]:
    """`bounded`: each arm ordered and limited by itself (dialect.bounds_on_every_input)."""
    arms = [
        _arm(column, has_start, paged, has_end, ascending)
        for column in (_C.from_address, _C.to_address)
    ]
    way = asc if ascending else desc
    if bounded:
        keys = [way(k) for k in _KEYS]
        arms = [select(a.order_by(*keys).limit(bindparam("limit")).subquery()) for a in arms]
    # By name: a compound's ORDER BY names its result columns.
    order: list[Any] = [way("block_number"), way("tx_index")]
    return union_all(*arms).order_by(*order).limit(bindparam("limit"))


def by_address(
    conn: Connection,
    chain_id: int,
    address: str,
    start: int | None,
    end: int | None,
    after: Sequence[Any] | None,
    limit: int,
    ascending: bool = False,
) -> Sequence[AnyRow]:
    """Up to `limit` transactions `address` sent or received within blocks [start, end),
    after `after`, each once."""
    params: dict[str, Any] = {
        "chain": chain_id,
        "address": address,
        "start": start,
        "end": end,
        "limit": 2 * limit,
    }
    if after is not None:
        params.update(position_params(after))
    bounded = bounds_on_every_input(conn)
    stmt = _shape(start is not None, after is not None, end is not None, ascending, bounded)
    out: list[AnyRow] = []
    last: tuple[int, int] | None = None
    for row in fetch(conn, stmt, params):  # type: ignore[arg-type]
        key = (int(row.block_number), int(row.tx_index))
        if key != last:  # a self-transfer's two copies are adjacent in page order
            out.append(row)
            last = key
    return out[:limit]
