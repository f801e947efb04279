"""The transactions an address sent or received (evm_txs), newest or oldest first.

Stage: store. Positions are (block_number, tx_index). The page is one compound statement: the
sender's index range and the receiver's, each already in page order, merged by UNION ALL under
the page's ORDER BY and LIMIT: SQLite merges the two ranges as co-routines and stops after
the page; PostgreSQL sorts what the two arms give, each arm then ordered and limited to the
page itself (dialect.bounds_on_every_input). Both read a page's worth of rows, however many
transactions the address has. A transaction to oneself comes from both ranges; the caller's
rows are deduplicated here, which is why twice the page is asked for. Block ranges are
[start, end). With their details (listTransactions): on PostgreSQL that statement is a CTE of
one statement that also reads the page's transfers and internal calls, on SQLite a second
statement reads them (`by_address_detailed`).
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

from avadata.store.dialect import bounds_on_every_input, read_rows, round_trips
from avadata.store.queries import tx_detail
from avadata.store.queries.arms import arm_rows, arms
from avadata.store.queries.keyset import AnyRow, fetch, position_params, record_maker
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


Detailed = tuple[AnyRow, list[Any], list[Any]]  # a transaction, its transfers, its calls


def by_address_detailed(
    conn: Connection,
    chain_id: int,
    address: str,
    start: int | None,
    end: int | None,
    after: Sequence[Any] | None,
    limit: int,
    ascending: bool = False,
) -> list[Detailed]:
    """`by_address`'s page, each transaction with its token transfers in log order and its
    listed internal calls in frame order (tx_detail.details_of): where a statement is a round
    trip (dialect.round_trips), in one statement, the page a CTE whose keys the details'
    arms read; elsewhere the page, then the details of its transactions."""
    if not round_trips(conn):
        rows = by_address(conn, chain_id, address, start, end, after, limit, ascending)
        keys = tx_detail.keys_of(rows)
        found = tx_detail.details_of(conn, chain_id, keys)
        return [(r, *found[k]) for r, k in zip(rows, keys, strict=True)]
    params = _params(chain_id, address, start, end, after, limit)
    stmt = _with_details(start is not None, after is not None, end is not None, ascending)
    return _split(read_rows(conn, stmt, {**params, "n": limit})[1], limit, ascending)


def _split(rows: list[Sequence[Any]], limit: int, ascending: bool) -> list[Detailed]:
    """A `_with_details` statement's rows as `by_address_detailed` returns them."""
    width = len(_TX_KEYS)
    page = sorted(
        arm_rows(rows, 0, 0, width),
        key=lambda r: (r[_AT_BLOCK], r[_AT_INDEX]),
        reverse=not ascending,
    )
    txs = _distinct(map(record_maker(_TX_KEYS), page))[:limit]
    keys = tx_detail.keys_of(txs)
    out: dict[tx_detail.TxKey, tuple[list[Any], list[Any]]] = {k: ([], []) for k in keys}
    tx_detail.sort_details(out, rows, 1, width)
    return [(r, *out[k]) for r, k in zip(txs, keys, strict=True)]


_TX_KEYS = tuple(c.key for c in evm_txs.c)
_AT_BLOCK, _AT_INDEX = _TX_KEYS.index("block_number"), _TX_KEYS.index("tx_index")


@functools.cache
def _with_details(has_start: bool, paged: bool, has_end: bool, ascending: bool) -> Any:
    """The page (`_shape`, PostgreSQL's form) as a CTE; arm 0 its rows, arms 1 and 2 the
    transfers and calls of its first :n distinct positions (a self-transfer is in the page
    twice), each read by key (tx_detail.details_over)."""
    page = _shape(has_start, paged, has_end, ascending, True).cte("page")
    way = asc if ascending else desc
    keys = (
        select(page.c.block_number, page.c.tx_index)
        .distinct()
        .order_by(way(page.c.block_number), way(page.c.tx_index))
        .limit(bindparam("n"))
        .cte("keys")
    )
    return arms(select(page), *tx_detail.details_over(keys))


def _distinct(rows: Any) -> list[AnyRow]:
    """`rows` (in page order) with a self-transfer's second copy left out."""
    out: list[AnyRow] = []
    last: tuple[int, int] | None = None
    for row in rows:
        key = (int(row.block_number), int(row.tx_index))
        if key != last:  # a self-transfer's two copies are adjacent in page order
            out.append(row)
            last = key
    return out


def _params(
    chain_id: int,
    address: str,
    start: int | None,
    end: int | None,
    after: Sequence[Any] | None,
    limit: int,
) -> dict[str, Any]:
    """A page's parameters: twice `limit` rows asked for (a self-transfer comes twice)."""
    params: dict[str, Any] = {
        "chain": chain_id,
        "address": address,
        "start": start,
        "end": end,
        "limit": 2 * limit,
    }
    if after is not None:
        params.update(position_params(after))
    return params


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
    params = _params(chain_id, address, start, end, after, limit)
    bounded = bounds_on_every_input(conn)
    stmt = _shape(start is not None, after is not None, end is not None, ascending, bounded)
    return _distinct(fetch(conn, stmt, params))[:limit]  # type: ignore[arg-type]
