"""The token and NFT metadata columns that transfers, balances and collection lists carry.

Stage: store. One definition, so every list labels them alike and the Data API's shapes
(avadata.api.data.shapes) can read any of these rows the same way.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_

from avadata.store.schema import nft_tokens, tokens


def nft_metadata_columns() -> list[Any]:
    """An NFT's URI, resolution status and resolved metadata (nft_tokens)."""
    nf = nft_tokens.c
    return [
        nf.token_uri,
        nf.index_status,
        nf.name.label("nft_name"),
        nf.description.label("nft_description"),
        nf.image_uri,
        nf.external_url,
        nf.metadata_json,
        nf.last_updated,
    ]


def join_token_info(base: Any, chain_id: Any, token: Any, token_id: Any) -> Any:
    """`base` outer-joined to the token's metadata (tokens) and its NFT's (nft_tokens), matched
    on the given chain, token-address and token-id columns of `base`."""
    tk = tokens.c
    nf = nft_tokens.c
    return base.outerjoin(tokens, and_(tk.chain_id == chain_id, tk.address == token)).outerjoin(
        nft_tokens,
        and_(nf.chain_id == chain_id, nf.token == token, nf.token_id == token_id),
    )
