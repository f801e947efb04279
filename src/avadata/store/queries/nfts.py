"""The tokens of one NFT collection (ERC-721 or ERC-1155), by token id, with owner and metadata;
one token of a collection.

Stage: store. nft_tokens holds one row per token id ever seen; positions are (token_id,).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Select, and_, bindparam, select

from avadata.store.queries.keyset import AnyRow, fetch
from avadata.store.queries.tokeninfo import nft_metadata_columns
from avadata.store.schema import erc721_owners, nft_tokens, tokens


def _tokens() -> Select[Any]:
    """nft_tokens rows with their owner (ERC-721), collection and metadata, of chain :chain
    and contract :token."""
    nf = nft_tokens.c
    o = erc721_owners.c
    tk = tokens.c
    return (
        select(
            nf.token,
            nf.token_id,
            nf.standard,
            *nft_metadata_columns(),
            o.owner,
            tk.name.label("token_name"),
            tk.symbol.label("token_symbol"),
        )
        .select_from(
            nft_tokens.outerjoin(
                erc721_owners,
                and_(o.chain_id == nf.chain_id, o.token == nf.token, o.token_id == nf.token_id),
            ).outerjoin(tokens, and_(tk.chain_id == nf.chain_id, tk.address == nf.token))
        )
        .where(nf.chain_id == bindparam("chain"), nf.token == bindparam("token"))
    )


@functools.cache
def _collection(paged: bool) -> Select[Any]:
    nf = nft_tokens.c
    stmt = _tokens()
    if paged:
        stmt = stmt.where(nf.token_id > bindparam("k0", type_=nf.token_id.type))
    return stmt.order_by(nf.token_id).limit(bindparam("limit"))


_ONE = _tokens().where(
    nft_tokens.c.token_id == bindparam("token_id", type_=nft_tokens.c.token_id.type)
)


def token(conn: Connection, chain_id: int, address: str, token_id: int) -> AnyRow | None:
    """One token id ever seen of the contract, with its owner (ERC-721), collection and
    metadata; None when never seen."""
    rows = fetch(conn, _ONE, {"chain": chain_id, "token": address, "token_id": token_id})
    return rows[0] if rows else None


def collection_tokens(
    conn: Connection,
    chain_id: int,
    token: str,
    after: Sequence[Any] | None,
    limit: int,
) -> Sequence[AnyRow]:
    params: dict[str, Any] = {"chain": chain_id, "token": token, "limit": limit}
    if after is not None:
        params["k0"] = int(after[0])
    return fetch(conn, _collection(after is not None), params)
