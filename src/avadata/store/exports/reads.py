"""The reads an export's file is written from: batches of transactions in chain order, after a
position, and the bounds an export is planned with.

Stage: store. Every batch is a keyset range (never OFFSET): an EVM chain's transactions walk
evm_txs' primary key (block_number, tx_index); an address's walk its sender and receiver
indexes (queries/address_txs.py); a primary chain's walk (block_timestamp, block_number,
tx_index) (primary/queries/txs.py). A batch ends with the position the next one starts after,
so an export resumed from a stored position repeats and skips nothing.
"""

from __future__ import annotations

import functools
import heapq
from collections.abc import Sequence
from typing import Any, NamedTuple

from sqlalchemy import Connection, Select, bindparam, func, select, tuple_

from avadata.store.cursors import get_cursor
from avadata.store.primary.queries.txs import Window, list_txs
from avadata.store.queries.address_txs import by_address
from avadata.store.queries.keyset import AnyRow, fetch, fetch_scalar, position_params
from avadata.store.schema import evm_blocks, evm_txs, primary_txs

Position = tuple[int, ...]


class Batch(NamedTuple):
    """Rows in export order, the position after the last of them (None: none yet), and
    whether the range is exhausted."""

    rows: list[AnyRow]
    after: Position | None
    done: bool


def evm_span(conn: Connection, chain_id: int) -> tuple[int, int] | None:
    """The first stored block and the indexed head of a chain (None: nothing indexed)."""
    head = get_cursor(conn, chain_id)
    first = conn.execute(
        select(func.min(evm_blocks.c.number)).where(evm_blocks.c.chain_id == chain_id)
    ).scalar()
    if head is None or first is None:
        return None
    return int(first), head.block_number


@functools.cache
def _block_from() -> Select[Any]:
    b = evm_blocks.c
    return (
        select(b.timestamp)
        .where(b.chain_id == bindparam("chain"), b.number >= bindparam("n"))
        .order_by(b.number)
        .limit(1)
    )


def first_block_from(conn: Connection, chain_id: int, ts: int, lo: int, hi: int) -> int:
    """The lowest block number n in [lo, hi + 1] from which every stored block has a timestamp
    >= ts (hi + 1: none in [lo, hi] has). A block's timestamp never falls below its parent's, so
    a binary search over block numbers finds it in about log2(hi - lo) primary-key reads."""
    low, high = lo, hi + 1
    while low < high:
        mid = (low + high) // 2
        found = fetch_scalar(conn, _block_from(), {"chain": chain_id, "n": mid})
        if found is None or int(found) >= ts:
            high = mid
        else:
            low = mid + 1
    return low


_EVM_KEY = (evm_txs.c.block_number, evm_txs.c.tx_index)


@functools.cache
def _chain_txs(paged: bool) -> Select[Any]:
    t = evm_txs.c
    conds = [
        t.chain_id == bindparam("chain"),
        t.block_number >= bindparam("first"),
        t.block_number <= bindparam("last"),
    ]
    if paged:
        at = tuple_(*(bindparam(f"k{i}", type_=k.type) for i, k in enumerate(_EVM_KEY)))
        conds.append(tuple_(*_EVM_KEY) > at)
    return select(*evm_txs.c).where(*conds).order_by(*_EVM_KEY).limit(bindparam("limit"))


def _evm_position(row: AnyRow) -> Position:
    return int(row.block_number), int(row.tx_index)


def evm_chain_batch(
    conn: Connection, chain_id: int, first: int, last: int, after: Position | None, limit: int
) -> Batch:
    """Up to `limit` of a chain's transactions in blocks [first, last], after `after`."""
    params: dict[str, Any] = {"chain": chain_id, "first": first, "last": last, "limit": limit}
    if after is not None:
        params.update(position_params(after))
    rows = fetch(conn, _chain_txs(after is not None), params)
    return Batch(rows, _evm_position(rows[-1]) if rows else after, len(rows) < limit)


def evm_address_batch(
    conn: Connection,
    chain_id: int,
    addresses: Sequence[str],
    bounds: tuple[int, int],
    after: Position | None,
    limit: int,
) -> Batch:
    """The transactions any of `addresses` sent or received in blocks [first, last], after
    `after`, each once. Each address's range gives at most a share of `limit`; the batch holds
    every row up to the lowest last position among the ranges that filled their share (a row
    past it may still come from a range that stopped short), so memory stays bounded however
    many addresses and nothing is skipped."""
    first, last = bounds
    share = max(limit // max(1, len(addresses)), min(limit, 100))
    pages = [by_address(conn, chain_id, a, first, last + 1, after, share, True) for a in addresses]
    full = [_evm_position(p[-1]) for p in pages if len(p) == share]
    horizon = min(full) if full else None
    rows: list[AnyRow] = []
    seen: Position | None = None
    for row in heapq.merge(*pages, key=_evm_position):
        key = _evm_position(row)
        if horizon is not None and key > horizon:
            break
        if key != seen:  # one transaction between two of the addresses
            rows.append(row)
            seen = key
    return Batch(rows, seen if seen is not None else after, horizon is None)


def primary_span(conn: Connection, chain: str) -> tuple[int, int] | None:
    """The first and last block timestamps of a primary chain's stored transactions."""
    t = primary_txs.c
    row = conn.execute(
        select(func.min(t.block_timestamp), func.max(t.block_timestamp)).where(
            t.blockchain_id == chain
        )
    ).first()
    if row is None or row[0] is None:
        return None
    return int(row[0]), int(row[1])


def primary_batch(
    conn: Connection,
    chain: str,
    addresses: Sequence[str],
    times: tuple[int | None, int | None],
    tx_types: Sequence[str],
    after: Position | None,
    limit: int,
) -> Batch:
    """Up to `limit` of a primary chain's transactions (of these addresses, when given; of
    these types, when given) with block times in [start, end], oldest first, after `after`."""
    window = Window(chain, addresses, after, limit, desc=False)
    rows = list(list_txs(conn, window, tx_types=tx_types, start=times[0], end=times[1]))
    last = rows[-1] if rows else None
    position = (
        (int(last.block_timestamp), int(last.block_number), int(last.tx_index))
        if last is not None
        else after
    )
    return Batch(rows, position, len(rows) < limit)
