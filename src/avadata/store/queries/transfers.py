"""Token transfers: of one address and standard (via transfer_participants), or of one token.

Stage: store. Positions are (block_number, log_index, batch_index), newest first. Block ranges
are [start, end): `start` inclusive, `end` exclusive, either may be open. Each row carries the
token's metadata (tokens) and, for NFTs, its URI and resolved metadata (nft_tokens).
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
from avadata.store.queries.tokeninfo import join_token_info, nft_metadata_columns
from avadata.store.schema import token_transfers, tokens, transfer_participants

_T = token_transfers.c
# A transfer's key, shared with its participants (chain first).
_KEY = ("chain_id", "block_number", "log_index", "batch_index")


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


@newest_in_range
def _by_address() -> tuple[Select[Any], list[Any], list[Any]]:
    p = transfer_participants.c
    stmt = select(*token_transfers.c).where(
        p.chain_id == bindparam("chain"),
        p.address == bindparam("address"),
        p.standard == bindparam("standard"),
    )
    base = _joins(participants_join(transfer_participants, token_transfers, _KEY))
    keys = [p[k] for k in _KEY[1:]]
    return _with_token_info(stmt.select_from(base)), keys, [_T[k] for k in _KEY[1:]]


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


@newest_in_range
def _by_token() -> tuple[Select[Any], list[Any], list[Any]]:
    stmt = select(*token_transfers.c).where(
        _T.chain_id == bindparam("chain"), _T.token == bindparam("token")
    )
    keys = [_T[k] for k in _KEY[1:]]
    return _with_token_info(stmt.select_from(_joins(token_transfers))), keys, []


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
