"""Token transfers: per address and standard (transactions:listErc20/721/1155), per token.

Stage: api. Newest first; startBlock inclusive, endBlock exclusive, open ends allowed.
"""

from __future__ import annotations

from fastapi import APIRouter

from avadata.api.data.listing import ListRoute, mount
from avadata.api.data.models import (
    ListErc20TransactionsResponse,
    ListErc721TransactionsResponse,
    ListErc1155TransactionsResponse,
    ListTransfersResponse,
)
from avadata.api.data.shapes import transfer
from avadata.api.fastroute import FastRoute
from avadata.api.paging import Position
from avadata.store.queries import transfers as queries
from avadata.store.queries.keyset import AnyRow

router = APIRouter(tags=["EVM transfers"], route_class=FastRoute)


def _position(r: AnyRow) -> Position:
    return (int(r.block_number), int(r.log_index), int(r.batch_index))


def _address_route(standard: str, verb: str, model: type) -> ListRoute:
    """transactions:list<verb>: the three standards differ only in these names."""
    return ListRoute(
        path=f"/v1/chains/{{chainId}}/addresses/{{address}}/transactions:{verb}",
        operation_id=f"{verb}Transactions",
        name=verb.replace("list", "list_").lower(),
        model=model,
        kind=f"transfers:{standard}",
        key="transactions",
        arity=3,
        query=queries.by_address,
        position=_position,
        item=transfer,
        blocks=True,
        fixed={"standard": standard},
    )


mount(
    router,
    _address_route("ERC-20", "listErc20", ListErc20TransactionsResponse),
    _address_route("ERC-721", "listErc721", ListErc721TransactionsResponse),
    _address_route("ERC-1155", "listErc1155", ListErc1155TransactionsResponse),
    ListRoute(
        path="/v1/chains/{chainId}/tokens/{address}/transfers",
        operation_id="listTransfers",
        name="list_token_transfers",
        model=ListTransfersResponse,
        kind="token-transfers",
        key="transfers",
        arity=3,
        query=queries.by_token,
        position=_position,
        item=transfer,
        address="token",
        blocks=True,
    ),
)
