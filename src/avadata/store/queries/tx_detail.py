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
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from sqlalchemy import (
    Connection,
    Table,
    and_,
    bindparam,
    literal_column,
    or_,
    select,
    true,
)

from avadata.store.dialect import read_rows
from avadata.store.queries.arms import arms
from avadata.store.queries.keyset import AnyRow, record_maker
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


Found = tuple[AnyRow, list[Any], list[Any]]  # a transaction, its transfers, its listed calls


@functools.lru_cache(maxsize=2)
def _found_with_details(by: str) -> Any:
    """The transaction `by` finds ("hash": by its hash; "address": the deployment of the
    contract at that address), its transfers and its listed calls' candidates in one statement
    (one round trip, not two): `arms` of the three, each arm reading the transaction's
    position, which a CTE finds once."""
    if by == "hash":
        where = (_T.chain_id == bindparam("chain"), _T.hash == bindparam("hash"))
        position = select(_T.block_number, _T.tx_index).where(*where)
    else:
        where = (_CO.chain_id == bindparam("chain"), _CO.address == bindparam("address"))
        position = select(_CO.block_number, _CO.tx_index).where(*where)
    at = position.cte("found")
    # Scalar subqueries, not a join to the CTE: each arm then reads its table by its key
    # (chain, block, index), where a join let the planners scan the chain's rows for a match.
    block = select(at.c.block_number).scalar_subquery()
    index = select(at.c.tx_index).scalar_subquery()

    def picked(table: Table) -> Any:
        c = table.c
        return and_(c.chain_id == bindparam("chain"), c.block_number == block, c.tx_index == index)

    return arms(
        _full().where(_T.block_number == block, _T.tx_index == index),
        _transfers(picked),
        _calls(picked),
    )


_FULL_KEYS = tuple(_full().selected_columns.keys())


def with_details(
    conn: Connection, chain_id: int, *, tx_hash: str = "", address: str = ""
) -> Found | None:
    """The transaction with this (lower-case) hash, or (`address`) the one that deployed the
    contract there (through the contract's row), with base_fee_per_gas, block_time_ms, input
    and the fee caps (None when not recorded), its token transfers in log order and its
    listed internal calls in frame order (as `details_of`); None when not indexed."""
    by, params = ("hash", {"hash": tx_hash}) if tx_hash else ("address", {"address": address})
    rows = read_rows(conn, _found_with_details(by), {"chain": chain_id, **params})[1]
    found = [row for row in rows if row[0] == 0]
    if not found:
        return None
    tx = record_maker(_FULL_KEYS)(found[0][1 : 1 + len(_FULL_KEYS)])
    out: dict[TxKey, tuple[list[Any], list[Any]]] = {
        (int(tx.block_number), int(tx.tx_index)): ([], [])
    }
    sort_details(out, rows, 1, len(_FULL_KEYS))
    transfers, calls = next(iter(out.values()))
    return tx, transfers, calls


_CO = contracts.c


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


def _transfers(picked: Callable[[Table], Any]) -> Any:
    """The token transfers of the transactions `picked(table)` names, with token info."""
    return (
        select(
            *token_transfers.c,
            _TK.name.label("token_name"),
            _TK.symbol.label("token_symbol"),
            _TK.decimals.label("token_decimals"),
            *nft_metadata_columns(),
        )
        .select_from(join_token_info(token_transfers, _TT.chain_id, _TT.token, _TT.token_id))
        .where(picked(token_transfers))
    )


def _calls(picked: Callable[[Table], Any]) -> Any:
    return select(*internal_calls.c).where(picked(internal_calls), _IC.depth > 0)


def details_over(keys: Any) -> tuple[Any, Any]:
    """The transfers and the listed calls' candidates of the transactions `keys` (a CTE of
    block_number, tx_index, a page's) names, as two arms for `arms`: for each key a LATERAL
    subquery reads its table by its primary key's (chain, block) prefix, a nested loop that
    no plan can turn into a scan of the chain (PostgreSQL only: SQLite has no LATERAL, and no
    round trip to save)."""

    def picked(table: Table) -> Any:
        c = table.c
        return and_(
            c.chain_id == bindparam("chain"),
            c.block_number == keys.c.block_number,
            c.tx_index == keys.c.tx_index,
        )

    out = []
    for arm in (_transfers(picked), _calls(picked)):
        # OFFSET 0: a subquery the planner may not pull up into the outer join (where it
        # could hash the chain's rows); it stays a scan run once per key, by key.
        each = arm.offset(literal_column("0")).lateral()
        out.append(select(*each.c).select_from(keys.join(each, true())))
    return out[0], out[1]


@functools.lru_cache(maxsize=512)
def _both(counts: tuple[int, ...]) -> Any:
    """The transfers (arm 0) and the listed calls' candidates (arm 1) of the transactions at
    the positions `counts` shapes (see `_at_keys`)."""
    return arms(_transfers(lambda t: _at_keys(t, counts)), _calls(lambda t: _at_keys(t, counts)))


_TRANSFER_KEYS = tuple(_transfers(lambda t: _at_keys(t, (1,))).selected_columns.keys())
_CALL_KEYS = tuple(_calls(lambda t: _at_keys(t, (1,))).selected_columns.keys())


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
    sort_details(out, read_rows(conn, stmt, params)[1], 0, 0)
    return out


def sort_details(
    out: dict[TxKey, tuple[list[Any], list[Any]]],
    rows: Iterable[Sequence[Any]],
    transfer_arm: int,
    skip: int,
) -> None:
    """Each row of an `arms(..., transfers, calls)` statement whose arm is the transfers'
    (`transfer_arm`) or the calls' (the next), after `skip` columns of earlier arms, into its
    transaction's lists in `out`: the transfers in log order, the listed calls in frame order."""
    as_transfer, as_call = record_maker(_TRANSFER_KEYS), record_maker(_CALL_KEYS)
    first = 1 + skip
    width = len(_TRANSFER_KEYS)
    for row in rows:
        if row[0] == transfer_arm:
            r = as_transfer(row[first : first + width])
            out[(int(r.block_number), int(r.tx_index))][0].append(r)
        elif row[0] == transfer_arm + 1:
            r = as_call(row[first + width :])
            if is_listed_call(int(r.depth), str(r.call_type), int(r.value)):
                out[(int(r.block_number), int(r.tx_index))][1].append(r)
    for transfers, calls in out.values():
        transfers.sort(key=lambda r: (int(r.log_index), int(r.batch_index)))
        calls.sort(key=lambda r: int(r.trace_index))


def keys_of(rows: Sequence[AnyRow]) -> list[TxKey]:
    return [(int(r.block_number), int(r.tx_index)) for r in rows]
