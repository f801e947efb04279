"""GET /v1/chains/{chainId}/nfts/collections/{address}/tokens: a collection's tokens.

Stage: api. By token id, ascending; ERC-721 items carry their current owner (none once
burnt), ERC-1155 items have no owner. Metadata comes from the NFT metadata worker's table.
"""

from __future__ import annotations

from fastapi import APIRouter

from avadata.api.data.listing import keyset_page
from avadata.api.data.models import Erc721Token, Erc1155Token, ListNftTokens
from avadata.api.data.shapes import erc721_token, erc1155_token
from avadata.api.deps import AddressPath, ChainIdPath, State, chain_conn, on_store
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES
from avadata.api.fastroute import FastRoute
from avadata.api.paging import PageSize, PageToken
from avadata.store.queries import nfts as queries
from avadata.store.queries.keyset import AnyRow

router = APIRouter(tags=["NFTs"], route_class=FastRoute)


def _collection_token(r: AnyRow) -> Erc721Token | Erc1155Token:
    return erc1155_token(r) if r.standard == "ERC-1155" else erc721_token(r, owner=r.owner)


@router.get(
    "/v1/chains/{chainId}/nfts/collections/{address}/tokens",
    operation_id="listTokens",
    responses={200: {"model": ListNftTokens}, **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def list_collection_tokens(
    st: State,
    chain_id: ChainIdPath,
    address: AddressPath,
    pageToken: PageToken = None,
    pageSize: PageSize = 10,
) -> JsonResponse:
    with chain_conn(st, chain_id) as (conn, chain):
        token_address = address.lower()
        return keyset_page(
            st,
            "nft-tokens",
            {"chain": chain.chain_id, "token": token_address},
            pageToken,
            pageSize,
            arity=1,
            fetch=lambda after, limit: queries.collection_tokens(
                conn, chain.chain_id, token_address, after, limit
            ),
            position=lambda r: (str(r.token_id),),
            key="tokens",
            item=_collection_token,
        )
