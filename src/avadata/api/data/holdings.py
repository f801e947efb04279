"""…/balances:getNative, balances:listErc1155 and balances:listCollectibles.

Stage: api. The native balance and ERC-1155 balances are read at `blockNumber` (default: the
latest indexed block) from the balance histories; collectibles are the ERC-721 tokens the
address owns now and its ERC-1155 balances at the latest block, one page keyed by (contract,
token id) across both standards. Zero balances are left out.
"""

from __future__ import annotations

from typing import Annotated, Any, cast

from fastapi import APIRouter, Query

from avadata.api.data.balances import block_and_native, native_balance
from avadata.api.data.models import (
    CurrencyCode,
    Erc721TokenBalance,
    Erc1155TokenBalance,
    GetNativeBalanceResponse,
    ListCollectibleBalancesResponse,
    ListErc1155BalancesResponse,
)
from avadata.api.data.shapes import checksum, erc721_token, erc1155_token
from avadata.api.deps import AddressPath, ChainIdPath, State, chain_conn, on_store
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES
from avadata.api.fastroute import FastRoute
from avadata.api.paging import BalancePageSize, PageToken, cut, page, with_token
from avadata.store.queries import balances as balance_queries
from avadata.store.queries import holdings as queries

router = APIRouter(tags=["EVM balances"], route_class=FastRoute)

BlockNumber = Annotated[
    str | None,
    Query(pattern=r"^[0-9]{1,18}$", description="Decimal block number; default the latest"),
]
ContractAddress = Annotated[
    str | None,
    Query(pattern=r"^0x[0-9a-fA-F]{40}$", description="Only tokens of this contract"),
]


def _position(r: Any) -> tuple[str, str]:
    # A token id may pass 64 bits, which a page token's JSON cannot hold as a number.
    return (str(r.token), str(r.token_id))


def _erc1155_balance(r: Any, chain_id: int) -> Erc1155TokenBalance:
    item: dict[str, Any] = dict(erc1155_token(r))
    item.update(chainId=str(chain_id), balance=str(r.balance))
    return cast(Erc1155TokenBalance, item)


def _erc721_balance(r: Any, chain_id: int) -> Erc721TokenBalance:
    item: dict[str, Any] = dict(erc721_token(r))
    item.update(ownerAddress=checksum(r.owner), chainId=str(chain_id))
    return cast(Erc721TokenBalance, item)


@router.get(
    "/v1/chains/{chainId}/addresses/{address}/balances:getNative",
    operation_id="getNativeBalance",
    responses={200: {"model": GetNativeBalanceResponse}, **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def get_native_balance(
    st: State,
    chain_id: ChainIdPath,
    address: AddressPath,
    blockNumber: BlockNumber = None,
    currency: Annotated[CurrencyCode, Query()] = "usd",
) -> JsonResponse:
    with chain_conn(st, chain_id) as (conn, chain):
        native = block_and_native(conn, chain, address.lower(), blockNumber)[1]
        return JsonResponse({"nativeTokenBalance": native_balance(st, chain, native, currency)})


@router.get(
    "/v1/chains/{chainId}/addresses/{address}/balances:listErc1155",
    operation_id="listErc1155Balances",
    responses={200: {"model": ListErc1155BalancesResponse}, **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def list_erc1155_balances(
    st: State,
    chain_id: ChainIdPath,
    address: AddressPath,
    blockNumber: BlockNumber = None,
    pageToken: PageToken = None,
    pageSize: BalancePageSize = 10,
    contractAddress: ContractAddress = None,
) -> JsonResponse:
    with chain_conn(st, chain_id) as (conn, chain):
        holder = address.lower()
        contract = None if contractAddress is None else contractAddress.lower()
        block, native = block_and_native(conn, chain, holder, blockNumber)
        filters = {"chain": chain.chain_id, "holder": holder, "block": block, "contract": contract}
        pg = page(st, "erc1155-balances", filters, pageToken, pageSize, arity=2)
        items: list[Erc1155TokenBalance] = []
        token: str | None = None
        if block is not None:
            found = queries.erc1155_at(
                conn, chain.chain_id, holder, block, contract, pg.after, pg.size + 1
            )
            rows, token = cut(found, pg, _position)
            items = [_erc1155_balance(r, chain.chain_id) for r in rows]
        body: dict[str, Any] = {
            "nativeTokenBalance": native_balance(st, chain, native, "usd"),
            "erc1155TokenBalances": items,
        }
        return JsonResponse(with_token(body, token))


@router.get(
    "/v1/chains/{chainId}/addresses/{address}/balances:listCollectibles",
    operation_id="listCollectibleBalances",
    responses={200: {"model": ListCollectibleBalancesResponse}, **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def list_collectible_balances(
    st: State,
    chain_id: ChainIdPath,
    address: AddressPath,
    pageToken: PageToken = None,
    pageSize: BalancePageSize = 10,
    contractAddress: ContractAddress = None,
) -> JsonResponse:
    with chain_conn(st, chain_id) as (conn, chain):
        holder = address.lower()
        contract = None if contractAddress is None else contractAddress.lower()
        filters = {"chain": chain.chain_id, "holder": holder, "contract": contract}
        pg = page(st, "collectibles", filters, pageToken, pageSize, arity=2)
        limit = pg.size + 1
        owned = balance_queries.erc721_owned(
            conn, chain.chain_id, holder, contract, pg.after, limit
        )
        # At the chain's head, found by the same statement.
        held = queries.erc1155_at(conn, chain.chain_id, holder, None, contract, pg.after, limit)
        # Both are in (contract, token id) order after the same position: merged, the first
        # `limit` are the page's.
        both: list[Any] = [*owned, *held]
        merged = sorted(both, key=lambda r: (str(r.token), int(r.token_id)))
        rows, token = cut(merged[:limit], pg, _position)
        items = [
            _erc1155_balance(r, chain.chain_id)
            if hasattr(r, "balance")
            else _erc721_balance(r, chain.chain_id)
            for r in rows
        ]
        return JsonResponse(with_token({"collectibleBalances": items}, token))
