"""Token transfers: of one address and standard (via transfer_participants), or of one token.

Stage: store. Positions are (block_number, log_index, batch_index), newest first. Block ranges
are [start, end): `start` inclusive, `end` exclusive, either may be open. Each row carries the
token's metadata (tokens) and, for NFTs, its URI and resolved metadata (nft_tokens).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Select, and_, bindparam, select

from avadata.store.queries.keyset import AnyRow, newest_in_range, run_in_range
from avadata.store.queries.tokeninfo import join_token_info, nft_metadata_columns
from avadata.store.schema import token_transfers, tokens, transfer_participants

_T = token_transfers.c


def _with_token_info(stmt: Select[Any]) -> Select[Any]:
    tk = tokens.c
    return stmt.add_columns(
        tk.name.label("token_name"),
        tk.symbol.label("token_symbol"),
        tk.decimals.label("token_decimals"),
        *nft_metadata_columns(),
    )


def _joins(base: Any) -> Any:
    return join_token_info(base, _T.chain_id, _T.token, _T.token_id)


@functools.cache
def _by_address(has_start: bool, paged: bool, has_end: bool) -> Select[Any]:
    p = transfer_participants.c
    stmt = select(*token_transfers.c).where(
        p.chain_id == bindparam("chain"),
        p.address == bindparam("address"),
        p.standard == bindparam("standard"),
    )
    base = _joins(
        transfer_participants.join(
            token_transfers,
            and_(
                _T.chain_id == p.chain_id,
                _T.block_number == p.block_number,
                _T.log_index == p.log_index,
                _T.batch_index == p.batch_index,
            ),
        )
    )
    return newest_in_range(
        _with_token_info(stmt.select_from(base)),
        [p.block_number, p.log_index, p.batch_index],
        has_start=has_start,
        paged=paged,
        has_end=has_end,
    )


def by_address(
    conn: Connection,
    chain_id: int,
    address: str,
    standard: str,
    start: int | None,
    end: int | None,
    after: Sequence[Any] | None,
    limit: int,
) -> Sequence[AnyRow]:
    """Transfers of `standard` where `address` is sender or receiver, newest first."""
    filters = {"chain": chain_id, "address": address, "standard": standard}
    return run_in_range(conn, _by_address, filters, start, end, after, limit)


@functools.cache
def _by_token(has_start: bool, paged: bool, has_end: bool) -> Select[Any]:
    stmt = select(*token_transfers.c).where(
        _T.chain_id == bindparam("chain"), _T.token == bindparam("token")
    )
    return newest_in_range(
        _with_token_info(stmt.select_from(_joins(token_transfers))),
        [_T.block_number, _T.log_index, _T.batch_index],
        has_start=has_start,
        paged=paged,
        has_end=has_end,
    )


def by_token(
    conn: Connection,
    chain_id: int,
    token: str,
    start: int | None,
    end: int | None,
    after: Sequence[Any] | None,
    limit: int,
) -> Sequence[AnyRow]:
    """Transfers of one token contract (any standard), newest first."""
    return run_in_range(
        conn, _by_token, {"chain": chain_id, "token": token}, start, end, after, limit
    )
