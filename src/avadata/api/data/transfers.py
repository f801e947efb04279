"""Token transfers: per address and standard (transactions:listErc20/721/1155), per token.

Stage: api. Newest first; startBlock inclusive, endBlock exclusive, open ends allowed.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from avadata.api.data.listing import EndBlock, StartBlock, block_range_page
from avadata.api.data.models import (
    ListErc20TransactionsResponse,
    ListErc721TransactionsResponse,
    ListErc1155TransactionsResponse,
    ListTransfersResponse,
)
from avadata.api.data.shapes import transfer
from avadata.api.deps import AddressPath, ChainIdPath, State, chain_conn, on_store
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES
from avadata.api.fastroute import FastRoute
from avadata.api.paging import PageSize, PageToken
from avadata.store.queries import transfers as queries
from avadata.store.types import Connection

router = APIRouter(tags=["EVM transfers"], route_class=FastRoute)


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
    address = address.lower()
    return block_range_page(
        st,
        f"transfers:{standard}",
        {"chain": chain_id, "address": address},
        start,
        end,
        token,
        size,
        fetch=lambda s, e, after, limit: queries.by_address(
            conn, chain_id, address, standard, s, e, after, limit
        ),
        position=_position,
        key="transactions",
        item=transfer,
    )


def _address_route(standard: str, verb: str, operation_id: str, model: type, name: str) -> None:
    """Register transactions:list<verb>: the three standards differ only in these names."""

    def route(
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
                st,
                conn,
                chain.chain_id,
                address,
                standard,
                startBlock,
                endBlock,
                pageToken,
                pageSize,
            )

    # The OpenAPI summary is derived from the function's name ("List Erc20"): keep it per route.
    route.__name__ = route.__qualname__ = name
    router.get(
        f"/v1/chains/{{chainId}}/addresses/{{address}}/transactions:{verb}",
        operation_id=operation_id,
        responses={200: {"model": model}, **ERROR_RESPONSES},
        response_model=None,
    )(on_store(route))


_address_route(
    "ERC-20", "listErc20", "listErc20Transactions", ListErc20TransactionsResponse, "list_erc20"
)
_address_route(
    "ERC-721", "listErc721", "listErc721Transactions", ListErc721TransactionsResponse, "list_erc721"
)
_address_route(
    "ERC-1155",
    "listErc1155",
    "listErc1155Transactions",
    ListErc1155TransactionsResponse,
    "list_erc1155",
)


@router.get(
    "/v1/chains/{chainId}/tokens/{address}/transfers",
    operation_id="listTransfers",
    responses={200: {"model": ListTransfersResponse}, **ERROR_RESPONSES},
    response_model=None,
)
@on_store
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
        token_address = address.lower()
        return block_range_page(
            st,
            "token-transfers",
            {"chain": chain.chain_id, "token": token_address},
            startBlock,
            endBlock,
            pageToken,
            pageSize,
            fetch=lambda s, e, after, limit: queries.by_token(
                conn, chain.chain_id, token_address, s, e, after, limit
            ),
            position=_position,
            key="transfers",
            item=transfer,
        )
