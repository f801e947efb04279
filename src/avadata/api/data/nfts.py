"""GET /v1/chains/{chainId}/nfts/collections/{address}/tokens: a collection's tokens; one
token (…/tokens/{tokenId}) and POST …/tokens/{tokenId}:reindex (queue its metadata again).

Stage: api. By token id, ascending; ERC-721 items carry their current owner (none once
burnt), ERC-1155 items have no owner. Metadata comes from the NFT metadata worker's table.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from avadata.api.data.listing import ListRoute, mount
from avadata.api.data.models import Erc721Token, Erc1155Token, ListNftTokens
from avadata.api.data.shapes import erc721_token, erc1155_token
from avadata.api.deps import AddressPath, AppState, ChainIdPath, State, chain_conn, on_store
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, not_found
from avadata.api.fastroute import FastRoute
from avadata.store import nft_metadata
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

# A token id is a uint256 in decimal: at most 78 digits. One of 78 digits at or above 2**256
# names no token any contract can hold: a 404, as an unknown token (a pattern for the exact
# bound would be a page long in the document).
TokenIdPath = Annotated[
    str,
    Path(
        alias="tokenId",
        pattern=r"^[0-9]{1,78}$",
        description="A decimal token id (a uint256: one at or above 2**256 is never found)",
    ),
]


def _token_id(raw: str) -> int:
    value = int(raw)
    if value >= 2**256:
        raise not_found(f"tokenId: no token {raw} (token ids are below 2**256)")
    return value


@router.get(
    "/v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}",
    operation_id="getTokenDetails",
    responses={200: {"model": Erc721Token | Erc1155Token}, **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def get_token(
    st: State, chain_id: ChainIdPath, address: AddressPath, token_id: TokenIdPath
) -> JsonResponse:
    with chain_conn(st, chain_id) as (conn, chain):
        row = queries.token(conn, chain.chain_id, address.lower(), _token_id(token_id))
        if row is None:
            raise not_found(f"tokenId: token {token_id} of {address} is not indexed")
        return JsonResponse(_collection_token(row))


@router.post(
    "/v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}:reindex",
    operation_id="reindexNft",
    status_code=201,
    responses={201: {"description": "Queued"}, **ERROR_RESPONSES},
    response_model=None,
    # An empty 201, as the reference documents it (no JSON body).
    response_class=Response,
)
async def reindex(
    st: State, chain_id: ChainIdPath, address: AddressPath, token_id: TokenIdPath
) -> Response:
    """Queue the token's metadata for the NFT worker (indexer/nft) to fetch again. In a worker
    thread, never on the event loop: it writes, and a write may wait for the indexer's lock."""
    return await run_in_threadpool(_reindex, st, chain_id, address, token_id)


def _reindex(st: AppState, chain_id: str, address: str, token_id: str) -> Response:
    with chain_conn(st, chain_id) as (_conn, chain):
        known = chain.chain_id
    writer = st.writer.engine(st.settings.db_url)
    if not nft_metadata.requeue(writer, known, address.lower(), _token_id(token_id)):
        raise not_found(f"tokenId: token {token_id} of {address} is not indexed")
    return Response(status_code=201)
