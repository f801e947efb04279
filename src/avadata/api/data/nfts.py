"""GET /v1/chains/{chainId}/nfts/collections/{address}/tokens: a collection's tokens.

Stage: api. By token id, ascending; ERC-721 items carry their current owner (none once
burnt), ERC-1155 items have no owner. Metadata comes from the NFT metadata worker's table.
"""

from __future__ import annotations

from fastapi import APIRouter

from avadata.api.data.listing import ListRoute, mount
from avadata.api.data.models import Erc721Token, Erc1155Token, ListNftTokens
from avadata.api.data.shapes import erc721_token, erc1155_token
from avadata.api.fastroute import FastRoute
from avadata.store.queries import nfts as queries
from avadata.store.queries.keyset import AnyRow

router = APIRouter(tags=["NFTs"], route_class=FastRoute)


def _collection_token(r: AnyRow) -> Erc721Token | Erc1155Token:
    return erc1155_token(r) if r.standard == "ERC-1155" else erc721_token(r, owner=r.owner)


mount(
    router,
    ListRoute(
        path="/v1/chains/{chainId}/nfts/collections/{address}/tokens",
        operation_id="listTokens",
        name="list_collection_tokens",
        model=ListNftTokens,
        kind="nft-tokens",
        key="tokens",
        arity=1,
        query=queries.collection_tokens,
        position=lambda r: (str(r.token_id),),
        item=_collection_token,
        address="token",
    ),
)
