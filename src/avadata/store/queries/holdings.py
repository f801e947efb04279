"""A holder's ERC-1155 balances at a block, and one contract's deployment and token facts.

Stage: store. ERC-1155 pages are keyed by (token, token_id) ascending: the holder's distinct
tokens come in order from the (chain, holder, token, token_id, block) index, one seek each,
each balance at the block from the primary key (its last change at or before it), zero
balances left out.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, NamedTuple

from sqlalchemy import Connection, Select, bindparam, select, tuple_

from avadata.store.queries import nfts
from avadata.store.queries.keyset import AnyRow, fetch, fetch_scalar
from avadata.store.schema import contracts, erc1155_balances, tokens

_E = erc1155_balances.c
_PAIR = (_E.token, _E.token_id)


@functools.cache
def _next_pair(by_contract: bool, paged: bool) -> Select[Any]:
    """The holder's first (token, token_id) after :k0, :k1: one seek on the (chain, holder,
    token, token_id, block) index, however long each pair's history is."""
    stmt = select(*_PAIR).where(_E.chain_id == bindparam("chain"), _E.holder == bindparam("holder"))
    if by_contract:
        stmt = stmt.where(_E.token == bindparam("contract"))
    if paged:
        at = tuple_(bindparam("k0", type_=_E.token.type), bindparam("k1", type_=_E.token_id.type))
        stmt = stmt.where(tuple_(*_PAIR) > at)
    return stmt.order_by(*_PAIR).limit(1)


# The pair's balance at :block: its last change at or before it (a primary-key seek).
_HELD_AT = (
    select(_E.balance)
    .where(
        _E.chain_id == bindparam("chain"),
        _E.token == bindparam("token"),
        _E.token_id == bindparam("token_id", type_=_E.token_id.type),
        _E.holder == bindparam("holder"),
        _E.block_number <= bindparam("block"),
    )
    .order_by(_E.block_number.desc())
    .limit(1)
)


class Erc1155Holding(NamedTuple):
    """A positive ERC-1155 balance with the token's metadata (the columns the shapes read)."""

    token: str
    token_id: int
    balance: int
    token_name: str | None
    token_symbol: str | None
    token_uri: str | None
    index_status: str | None
    nft_name: str | None
    nft_description: str | None
    image_uri: str | None
    external_url: str | None
    metadata_json: str | None
    last_updated: int | None


def erc1155_at(
    conn: Connection,
    chain_id: int,
    holder: str,
    block: int,
    contract: str | None,
    after: Sequence[Any] | None,
    limit: int,
) -> list[Erc1155Holding]:
    """Up to `limit` ERC-1155 tokens `holder` has a positive balance of at `block`, by (token,
    token_id) after `after`: the holder's next pair by an index seek, its balance at the
    block by a primary-key seek, zero balances (sold out, or not yet held) skipped."""
    params: dict[str, Any] = {"chain": chain_id, "holder": holder, "contract": contract}
    cursor = None if after is None else (str(after[0]), int(after[1]))
    found: list[Erc1155Holding] = []
    while len(found) < limit:
        if cursor is not None:
            params.update(k0=cursor[0], k1=cursor[1])
        pair = fetch(conn, _next_pair(contract is not None, cursor is not None), params)
        if not pair:
            break
        cursor = (str(pair[0].token), int(pair[0].token_id))
        at = {**params, "token": cursor[0], "token_id": cursor[1], "block": block}
        balance = fetch_scalar(conn, _HELD_AT, at)
        if balance is not None and int(balance) > 0:
            info = nfts.token(conn, chain_id, cursor[0], cursor[1])
            found.append(_holding(cursor, int(balance), info))
    return found


def _holding(pair: tuple[str, int], balance: int, info: AnyRow | None) -> Erc1155Holding:
    if info is None:
        return Erc1155Holding(pair[0], pair[1], balance, *([None] * 10))
    return Erc1155Holding(
        pair[0],
        pair[1],
        balance,
        info.token_name,
        info.token_symbol,
        info.token_uri,
        info.index_status,
        info.nft_name,
        info.nft_description,
        info.image_uri,
        info.external_url,
        info.metadata_json,
        info.last_updated,
    )


_CO = contracts.c
_TK = tokens.c
_CONTRACT = select(*contracts.c).where(
    _CO.chain_id == bindparam("chain"), _CO.address == bindparam("address")
)
_TOKEN = select(*tokens.c).where(
    _TK.chain_id == bindparam("chain"), _TK.address == bindparam("address")
)


def contract(conn: Connection, chain_id: int, address: str) -> tuple[AnyRow | None, AnyRow | None]:
    """(the contract's deployment row, its token row): either is None when not indexed."""
    params = {"chain": chain_id, "address": address}
    deployed = fetch(conn, _CONTRACT, params)
    token = fetch(conn, _TOKEN, params)
    return (deployed[0] if deployed else None), (token[0] if token else None)
