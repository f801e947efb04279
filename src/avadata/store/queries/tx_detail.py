"""One transaction in full (getTransaction, getDeploymentTransaction, the address listings'
details): its row with the block's base fee and its call data, and the token transfers and
listed internal transactions of a set of transactions.

Stage: store. A transaction is found by hash through the (chain_id, hash) index, or by the
position (block_number, tx_index) its contract's row holds; the transfers and internal calls
of a page of transactions come from one statement (a UNION ALL of the two), a term per block
of the page: the primary key's (chain_id, block_number) prefix, and only the page's own
transactions (tx_index IN ...) go on to the token joins and come back. Invariant: what a page
reads is bounded by its own transactions and their blocks, however deep the page.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import (
    Connection,
    and_,
    bindparam,
    literal_column,
    null,
    or_,
    select,
    type_coerce,
    union_all,
)

from avadata.store.dialect import read_rows
from avadata.store.queries.keyset import AnyRow, fetch, record_maker
from avadata.store.queries.tokeninfo import join_token_info, nft_metadata_columns
from avadata.store.rows import is_listed_call
from avadata.store.schema import (
    contracts,
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


def by_hash(conn: Connection, chain_id: int, tx_hash: str) -> AnyRow | None:
    """The transaction with this (lower-case) hash, with base_fee_per_gas, block_time_ms, input
    and the fee caps (None when not recorded); None when not indexed."""
    rows = fetch(conn, _BY_HASH, {"chain": chain_id, "hash": tx_hash})
    return rows[0] if rows else None


_CO = contracts.c
# The contract's row found by primary key, then its transaction by position: one statement.
_DEPLOYMENT = (
    _full()
    .join(
        contracts,
        and_(
            _CO.chain_id == _T.chain_id,
            _CO.block_number == _T.block_number,
            _CO.tx_index == _T.tx_index,
        ),
    )
    .where(_CO.chain_id == bindparam("chain"), _CO.address == bindparam("address"))
)


def deployment(conn: Connection, chain_id: int, address: str) -> AnyRow | None:
    """As `by_hash`, for the transaction that deployed the contract at `address` (lower-case);
    None when its deployment or that transaction is not indexed."""
    rows = fetch(conn, _DEPLOYMENT, {"chain": chain_id, "address": address})
    return rows[0] if rows else None


_TT = token_transfers.c
_IC = internal_calls.c


def _at_keys(table: Any, counts: tuple[int, ...]) -> Any:
    """`table`'s rows of the transactions at `tx_index` IN (:i<k>_0, ...) of block :b<k>, for
    as many blocks as `counts` has terms, term k naming `counts[k]` transactions. Each term is
    a search of the block by the primary key, its transactions picked there (SQLite: a
    MULTI-INDEX OR; PostgreSQL: an Index Cond on the block, the indexes a filter on its rows):
    the other transactions of a busy block are neither joined nor returned. Not a (block,
    index) row-value IN: SQLite 3.40 scans the whole chain for one. One parameter per index,
    not an expanding list, so that the statement runs prepared (dialect.read_rows)."""
    c = table.c
    return or_(
        *(
            and_(
                c.chain_id == bindparam("chain"),
                c.block_number == bindparam(f"b{k}"),
                c.tx_index.in_([bindparam(f"i{k}_{j}") for j in range(n)]),
            )
            for k, n in enumerate(counts)
        )
    )


def _transfers(counts: tuple[int, ...]) -> Any:
    return (
        select(
            *token_transfers.c,
            _TK.name.label("token_name"),
            _TK.symbol.label("token_symbol"),
            _TK.decimals.label("token_decimals"),
            *nft_metadata_columns(),
        )
        .select_from(join_token_info(token_transfers, _TT.chain_id, _TT.token, _TT.token_id))
        .where(_at_keys(token_transfers, counts))
    )


def _calls(counts: tuple[int, ...]) -> Any:
    return select(*internal_calls.c).where(_at_keys(internal_calls, counts), _IC.depth > 0)


@functools.lru_cache(maxsize=512)
def _both(counts: tuple[int, ...]) -> Any:
    """The transfers and the listed calls' candidates in one UNION ALL (one round trip, not
    two): a first column says which arm (0: the transfers), then the transfers' columns, then
    the calls'; each arm names its own columns as they are and pads the other's with NULLs of
    their type (so either arm reads alone)."""
    transfers, calls = _transfers(counts), _calls(counts)
    t_cols = list(transfers.selected_columns)
    c_cols = list(calls.selected_columns)
    transfers = transfers.with_only_columns(
        literal_column("0").label("arm"),
        *t_cols,
        *(type_coerce(null(), c.type).label(f"call_{c.key}") for c in c_cols),
    )
    calls = calls.with_only_columns(
        literal_column("1").label("arm"),
        *(type_coerce(null(), c.type).label(f"transfer_{c.key}") for c in t_cols),
        *c_cols,
    )
    return union_all(transfers, calls)


_TRANSFER_KEYS = tuple(_transfers((1,)).selected_columns.keys())
_CALL_KEYS = tuple(_calls((1,)).selected_columns.keys())


def details_of(
    conn: Connection, chain_id: int, keys: Iterable[TxKey]
) -> dict[TxKey, tuple[list[Any], list[Any]]]:
    """Each transaction's (by position) token transfers in log order, with token info, and its
    listed internal transactions (rows.is_listed_call) in frame order."""
    out: dict[TxKey, tuple[list[Any], list[Any]]] = {k: ([], []) for k in set(keys)}
    if not out:
        return out
    # Sorted here, not by the statement: ordering the terms' rows would make SQLite sort in a
    # temporary B-tree, and these are a page's few rows.
    by_block: dict[int, list[int]] = {}
    for block, index in sorted(out):
        by_block.setdefault(block, []).append(index)
    params: dict[str, Any] = {"chain": chain_id}
    for k, (block, indexes) in enumerate(by_block.items()):
        params[f"b{k}"] = block
        params.update((f"i{k}_{j}", i) for j, i in enumerate(indexes))
    stmt = _both(tuple(len(v) for v in by_block.values()))
    as_transfer, as_call = record_maker(_TRANSFER_KEYS), record_maker(_CALL_KEYS)
    width = len(_TRANSFER_KEYS)
    for row in read_rows(conn, stmt, params)[1]:
        if row[0] == 0:
            r = as_transfer(row[1 : 1 + width])
            out[(int(r.block_number), int(r.tx_index))][0].append(r)
            continue
        r = as_call(row[1 + width :])
        if is_listed_call(int(r.depth), str(r.call_type), int(r.value)):
            out[(int(r.block_number), int(r.tx_index))][1].append(r)
    for transfers, calls in out.values():
        transfers.sort(key=lambda r: (int(r.log_index), int(r.batch_index)))
        calls.sort(key=lambda r: int(r.trace_index))
    return out


def keys_of(rows: Sequence[AnyRow]) -> list[TxKey]:
    return [(int(r.block_number), int(r.tx_index)) for r in rows]
