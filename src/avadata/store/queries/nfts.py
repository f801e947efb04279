"""The tokens of one NFT collection (ERC-721 or ERC-1155), by token id, with owner and metadata.

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


@functools.cache
def _collection(paged: bool) -> Select[Any]:
    nf = nft_tokens.c
    o = erc721_owners.c
    tk = tokens.c
    stmt = (
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
    if paged:
        stmt = stmt.where(nf.token_id > bindparam("k0", type_=nf.token_id.type))
    return stmt.order_by(nf.token_id).limit(bindparam("limit"))


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
