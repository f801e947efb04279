"""Token transfers: per address and standard (transactions:listErc20/721/1155), per token.

Stage: api. Newest first; startBlock inclusive, endBlock exclusive, open ends allowed.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from sqlalchemy import Connection

from avadata.api.data.listing import block_range, cut, with_token
from avadata.api.data.models import (
    ListErc20TransactionsResponse,
    ListErc721TransactionsResponse,
    ListErc1155TransactionsResponse,
    ListTransfersResponse,
)
from avadata.api.data.shapes import transfer
from avadata.api.deps import (
    AddressPath,
    ChainIdPath,
    PageSize,
    PageToken,
    State,
    chain_conn,
    page,
)
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES
from avadata.store.queries import transfers as queries

router = APIRouter(tags=["EVM transfers"])

# Block numbers are stored as 64-bit integers: a larger bound could only match nothing, and
# SQLite refuses to bind it, so it is a 400 rather than a failed query.
MAX_BLOCK = 2**63 - 1
StartBlock = Annotated[
    int | None,
    Query(alias="startBlock", ge=0, le=MAX_BLOCK, description="First block, inclusive"),
]
EndBlock = Annotated[
    int | None,
    Query(alias="endBlock", ge=0, le=MAX_BLOCK, description="Last block, exclusive"),
]


def _position(r: Any) -> tuple[int, int, int]:
    return (int(r.block_number), int(r.log_index), int(r.batch_index))


def _by_address(
    st: State,
    conn: Connection,
    chain_id: int,
    address: str,
    standard: str,
    start: int | None,
    end: int | None,
    token: str | None,
    size: int,
) -> JsonResponse:
    start, end = block_range(start, end)
    address = address.lower()
    filters = {"chain": chain_id, "address": address, "start": start, "end": end}
    pg = page(st, f"transfers:{standard}", filters, token, size, arity=3)
    rows, next_token = cut(
        queries.by_address(conn, chain_id, address, standard, start, end, pg.after, pg.size + 1),
        pg,
        _position,
    )
    return JsonResponse(with_token({"transactions": [transfer(r) for r in rows]}, next_token))


@router.get(
    "/v1/chains/{chainId}/addresses/{address}/transactions:listErc20",
    operation_id="listErc20Transactions",
    responses={200: {"model": ListErc20TransactionsResponse}, **ERROR_RESPONSES},
    response_model=None,
)
def list_erc20(
    st: State,
    chain_id: ChainIdPath,
    address: AddressPath,
    startBlock: StartBlock = None,
    endBlock: EndBlock = None,
    pageToken: PageToken = None,
    pageSize: PageSize = 10,
) -> JsonResponse:
    with chain_conn(st, chain_id) as (conn, chain):
        return _by_address(
            st, conn, chain.chain_id, address, "ERC-20", startBlock, endBlock, pageToken, pageSize
        )


@router.get(
    "/v1/chains/{chainId}/addresses/{address}/transactions:listErc721",
    operation_id="listErc721Transactions",
    responses={200: {"model": ListErc721TransactionsResponse}, **ERROR_RESPONSES},
    response_model=None,
)
def list_erc721(
    st: State,
    chain_id: ChainIdPath,
    address: AddressPath,
    startBlock: StartBlock = None,
    endBlock: EndBlock = None,
    pageToken: PageToken = None,
    pageSize: PageSize = 10,
) -> JsonResponse:
    with chain_conn(st, chain_id) as (conn, chain):
        return _by_address(
            st, conn, chain.chain_id, address, "ERC-721", startBlock, endBlock, pageToken, pageSize
        )


@router.get(
    "/v1/chains/{chainId}/addresses/{address}/transactions:listErc1155",
    operation_id="listErc1155Transactions",
    responses={200: {"model": ListErc1155TransactionsResponse}, **ERROR_RESPONSES},
    response_model=None,
)
def list_erc1155(
    st: State,
    chain_id: ChainIdPath,
    address: AddressPath,
    startBlock: StartBlock = None,
    endBlock: EndBlock = None,
    pageToken: PageToken = None,
    pageSize: PageSize = 10,
) -> JsonResponse:
    with chain_conn(st, chain_id) as (conn, chain):
        return _by_address(
            st, conn, chain.chain_id, address, "ERC-1155", startBlock, endBlock, pageToken, pageSize
        )


@router.get(
    "/v1/chains/{chainId}/tokens/{address}/transfers",
    operation_id="listTransfers",
    responses={200: {"model": ListTransfersResponse}, **ERROR_RESPONSES},
    response_model=None,
)
def list_token_transfers(
    st: State,
    chain_id: ChainIdPath,
    address: AddressPath,
    startBlock: StartBlock = None,
    endBlock: EndBlock = None,
    pageToken: PageToken = None,
    pageSize: PageSize = 10,
) -> JsonResponse:
    with chain_conn(st, chain_id) as (conn, chain):
        start, end = block_range(startBlock, endBlock)
        token_address = address.lower()
        filters = {"chain": chain.chain_id, "token": token_address, "start": start, "end": end}
        pg = page(st, "token-transfers", filters, pageToken, pageSize, arity=3)
        rows, next_token = cut(
            queries.by_token(
                conn, chain.chain_id, token_address, start, end, pg.after, pg.size + 1
            ),
            pg,
            _position,
        )
        return JsonResponse(with_token({"transfers": [transfer(r) for r in rows]}, next_token))
