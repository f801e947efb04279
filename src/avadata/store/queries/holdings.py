"""A holder's ERC-1155 balances at a block, one NFT's details, one contract's token facts.

Stage: store. ERC-1155 pages are keyed by (token, token_id) ascending: the holder's distinct
tokens come in order from the (chain, holder, token, token_id, block) index, each balance at
the block from the primary key (its last change at or before it), zero balances left out.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Select, and_, bindparam, select, tuple_

from avadata.store.queries.keyset import AnyRow, fetch
from avadata.store.queries.tokeninfo import join_token_info, nft_metadata_columns
from avadata.store.schema import contracts, erc721_owners, erc1155_balances, nft_tokens, tokens

_E = erc1155_balances.c


def _balance_at() -> Any:
    h = erc1155_balances.alias("h")
    return (
        select(h.c.balance)
        .where(
            h.c.chain_id == _E.chain_id,
            h.c.token == _E.token,
            h.c.token_id == _E.token_id,
            h.c.holder == _E.holder,
            h.c.block_number <= bindparam("block"),
        )
        .order_by(h.c.block_number.desc())
        .limit(1)
        .scalar_subquery()
    )


@functools.cache
def _erc1155(by_contract: bool, paged: bool) -> Select[Any]:
    held = (
        select(_E.chain_id, _E.token, _E.token_id, _balance_at().label("balance"))
        .where(
            _E.chain_id == bindparam("chain"),
            _E.holder == bindparam("holder"),
            _E.block_number <= bindparam("block"),
        )
        .group_by(_E.chain_id, _E.holder, _E.token, _E.token_id)
    )
    if by_contract:
        held = held.where(_E.token == bindparam("contract"))
    if paged:
        at = tuple_(bindparam("k0", type_=_E.token.type), bindparam("k1", type_=_E.token_id.type))
        held = held.where(tuple_(_E.token, _E.token_id) > at)
    h = held.order_by(_E.token, _E.token_id).subquery("held")
    tk = tokens.c
    return (
        select(
            h.c.token,
            h.c.token_id,
            h.c.balance,
            tk.name.label("token_name"),
            tk.symbol.label("token_symbol"),
            *nft_metadata_columns(),
        )
        .select_from(join_token_info(h, h.c.chain_id, h.c.token, h.c.token_id))
        .where(h.c.balance > 0)
        .order_by(h.c.token, h.c.token_id)
        .limit(bindparam("limit"))
    )


def erc1155_at(
    conn: Connection,
    chain_id: int,
    holder: str,
    block: int,
    contract: str | None,
    after: Sequence[Any] | None,
    limit: int,
) -> Sequence[AnyRow]:
    """ERC-1155 tokens `holder` has a positive balance of at `block`, by (token, token_id)."""
    params: dict[str, Any] = {
        "chain": chain_id,
        "holder": holder,
        "block": block,
        "contract": contract,
        "limit": limit,
    }
    if after is not None:
        params.update(k0=str(after[0]), k1=int(after[1]))
    return fetch(conn, _erc1155(contract is not None, after is not None), params)


_NF = nft_tokens.c
_O = erc721_owners.c
_TK = tokens.c
_NFT = (
    select(
        _NF.token,
        _NF.token_id,
        _NF.standard,
        *nft_metadata_columns(),
        _O.owner,
        _TK.name.label("token_name"),
        _TK.symbol.label("token_symbol"),
    )
    .select_from(
        nft_tokens.outerjoin(
            erc721_owners,
            and_(_O.chain_id == _NF.chain_id, _O.token == _NF.token, _O.token_id == _NF.token_id),
        ).outerjoin(tokens, and_(_TK.chain_id == _NF.chain_id, _TK.address == _NF.token))
    )
    .where(
        _NF.chain_id == bindparam("chain"),
        _NF.token == bindparam("token"),
        _NF.token_id == bindparam("token_id", type_=_NF.token_id.type),
    )
)


def nft(conn: Connection, chain_id: int, token: str, token_id: int) -> AnyRow | None:
    """One ERC-721/1155 token ever seen, with its owner (721), collection and metadata."""
    rows = fetch(conn, _NFT, {"chain": chain_id, "token": token, "token_id": token_id})
    return rows[0] if rows else None


_CO = contracts.c
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
