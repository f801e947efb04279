"""One transaction in full (getTransaction, getDeploymentTransaction, the address listings'
details): its row with the block's base fee and its call data, and the token transfers and
listed internal transactions of a set of transactions.

Stage: store. A transaction is found by hash through the (chain_id, hash) index, or by its
position (block_number, tx_index); the transfers and internal calls of a page of transactions
come from one statement each, a term per block of the page: the primary key's (chain_id,
block_number) prefix, and only the page's own transactions (tx_index IN ...) go on to the
token joins and come back. Invariant: what a page reads is bounded by its own transactions
and their blocks, however deep the page.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Connection, and_, bindparam, or_, select

from avadata.store.queries.keyset import AnyRow, fetch
from avadata.store.queries.tokeninfo import join_token_info, nft_metadata_columns
from avadata.store.rows import is_listed_call
from avadata.store.schema import (
    evm_blocks,
    evm_tx_inputs,
    evm_txs,
    internal_calls,
    token_transfers,
    tokens,
)

_T = evm_txs.c
_I = evm_tx_inputs.c
_B = evm_blocks.c
_TK = tokens.c

TxKey = tuple[int, int]  # (block_number, tx_index)


def _full() -> Any:
    return (
        select(
            *evm_txs.c,
            _B.base_fee.label("base_fee_per_gas"),
            _B.time_ms.label("block_time_ms"),
            _I.input,
            _I.max_fee_per_gas,
            _I.max_priority_fee_per_gas,
        )
        .select_from(
            evm_txs.join(
                evm_blocks, and_(_B.chain_id == _T.chain_id, _B.number == _T.block_number)
            ).outerjoin(
                evm_tx_inputs,
                and_(
                    _I.chain_id == _T.chain_id,
                    _I.block_number == _T.block_number,
                    _I.tx_index == _T.tx_index,
                ),
            )
        )
        .where(_T.chain_id == bindparam("chain"))
    )


_BY_HASH = _full().where(_T.hash == bindparam("hash"))
_AT = _full().where(_T.block_number == bindparam("number"), _T.tx_index == bindparam("tx_index"))


def by_hash(conn: Connection, chain_id: int, tx_hash: str) -> AnyRow | None:
    """The transaction with this (lower-case) hash, with base_fee_per_gas, block_time_ms, input
    and the fee caps (None when not recorded); None when not indexed."""
    rows = fetch(conn, _BY_HASH, {"chain": chain_id, "hash": tx_hash})
    return rows[0] if rows else None


def at(conn: Connection, chain_id: int, number: int, tx_index: int) -> AnyRow | None:
    """As `by_hash`, for the transaction at this position."""
    rows = fetch(conn, _AT, {"chain": chain_id, "number": number, "tx_index": tx_index})
    return rows[0] if rows else None


_TT = token_transfers.c
_IC = internal_calls.c


def _at_keys(table: Any, blocks: int) -> Any:
    """`table`'s rows of the transactions at `tx_index` IN :i<k> of block :b<k>, for `blocks`
    blocks. Each term is a search of the block by the primary key, its transactions picked
    there (SQLite: a MULTI-INDEX OR; PostgreSQL: an Index Cond on the block, the indexes a
    filter on its rows): the other transactions of a busy block are neither joined nor
    returned. Not a (block, index) row-value IN: SQLite 3.40 scans the whole chain for one."""
    c = table.c
    return or_(
        *(
            and_(
                c.chain_id == bindparam("chain"),
                c.block_number == bindparam(f"b{k}"),
                c.tx_index.in_(bindparam(f"i{k}", expanding=True)),
            )
            for k in range(blocks)
        )
    )


@functools.cache
def _transfers(blocks: int) -> Any:
    return (
        select(
            *token_transfers.c,
            _TK.name.label("token_name"),
            _TK.symbol.label("token_symbol"),
            _TK.decimals.label("token_decimals"),
            *nft_metadata_columns(),
        )
        .select_from(join_token_info(token_transfers, _TT.chain_id, _TT.token, _TT.token_id))
        .where(_at_keys(token_transfers, blocks))
    )


@functools.cache
def _calls(blocks: int) -> Any:
    return select(*internal_calls.c).where(_at_keys(internal_calls, blocks), _IC.depth > 0)


def _of(
    conn: Connection, stmt: Any, chain_id: int, keys: Iterable[TxKey], order: Sequence[str]
) -> dict[TxKey, list[AnyRow]]:
    # Sorted here, not by the statement: ordering the terms' rows would make SQLite sort in a
    # temporary B-tree, and these are a page's few rows.
    out: dict[TxKey, list[AnyRow]] = {k: [] for k in set(keys)}
    if not out:
        return out
    by_block: dict[int, list[int]] = {}
    for block, index in sorted(out):
        by_block.setdefault(block, []).append(index)
    params: dict[str, Any] = {"chain": chain_id}
    for k, (block, indexes) in enumerate(by_block.items()):
        params[f"b{k}"], params[f"i{k}"] = block, indexes
    for r in conn.execute(stmt(len(by_block)), params):
        out[(int(r.block_number), int(r.tx_index))].append(r)
    for rows in out.values():
        rows.sort(key=lambda r: tuple(int(getattr(r, c)) for c in order))
    return out


def transfers_of(
    conn: Connection, chain_id: int, keys: Iterable[TxKey]
) -> dict[TxKey, list[AnyRow]]:
    """The token transfers of each transaction (by position), in log order, with token info."""
    return _of(conn, _transfers, chain_id, keys, ("log_index", "batch_index"))


def internals_of(
    conn: Connection, chain_id: int, keys: Iterable[TxKey]
) -> dict[TxKey, list[AnyRow]]:
    """The listed internal transactions (rows.is_listed_call) of each transaction, in frame
    order."""
    found = _of(conn, _calls, chain_id, keys, ("trace_index",))
    return {
        k: [r for r in rows if is_listed_call(int(r.depth), str(r.call_type), int(r.value))]
        for k, rows in found.items()
    }


def keys_of(rows: Sequence[AnyRow]) -> list[TxKey]:
    return [(int(r.block_number), int(r.tx_index)) for r in rows]
