"""One transaction in full: GET /v1/chains/{chainId}/transactions/{txHash} (getTransaction) and
/contracts/{address}/transactions:getDeployment; the details (transfers, internal
transactions) the address listings attach to each of their transactions.

Stage: api. The native transaction is the list item plus its call data, the block's base fee
and the EIP-1559 fee caps; the transfers and internal transactions are those of the
transaction, in log and frame order. `teleporterMessageInfo` is never sent: the store keeps no
Teleporter messages (docs/compatibility.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, cast

from fastapi import APIRouter, Path, Query

from avadata.api.data.models import (
    CurrencyCode,
    FullNativeTransactionDetails,
    GetTransactionResponse,
    NetworkTokenDetails,
)
from avadata.api.data.shapes import internal_detail, money, transfer_detail
from avadata.api.data.transactions import native_tx
from avadata.api.deps import AddressPath, AppState, ChainIdPath, State, chain_conn, on_store
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, not_found
from avadata.api.fastroute import FastRoute
from avadata.store.queries import tx_detail as queries
from avadata.store.queries.chains import ChainRow
from avadata.store.queries.keyset import AnyRow

router = APIRouter(tags=["EVM transactions"], route_class=FastRoute)


def full_native(row: AnyRow) -> FullNativeTransactionDetails:
    out: dict[str, Any] = dict(native_tx(row))
    # Transactions indexed before call data was kept (revision 0013) have no input row: their
    # method selector is what the store knows (docs/compatibility.md).
    out["input"] = row.input if row.input is not None else (row.method_hash or "0x")
    out["baseFeePerGas"] = str(row.base_fee_per_gas or 0)
    if row.block_time_ms is not None:  # the block's timeMilliseconds (ACP-226, Granite)
        out["blockTimestampMilliseconds"] = int(row.block_time_ms)
    if row.max_fee_per_gas is not None:
        out["maxFeePerGas"] = str(row.max_fee_per_gas)
    if row.max_priority_fee_per_gas is not None:
        out["maxPriorityFeePerGas"] = str(row.max_priority_fee_per_gas)
    return cast(FullNativeTransactionDetails, out)


def details(transfers: Sequence[AnyRow], internals: Sequence[AnyRow]) -> dict[str, list[Any]]:
    """The transfer and internal-transaction members of one transaction (empty lists included,
    as the reference sends them)."""
    out: dict[str, list[Any]] = {
        "erc20Transfers": [],
        "erc721Transfers": [],
        "erc1155Transfers": [],
    }
    for r in transfers:
        key, item = transfer_detail(r)
        out[key].append(item)
    out["internalTransactions"] = [internal_detail(r) for r in internals]
    return out


def network_token_details(st: AppState, chain: ChainRow, currency: str) -> NetworkTokenDetails:
    out: NetworkTokenDetails = {
        "networkToken": {
            "name": st.settings.native_token_name,
            "symbol": st.settings.native_token_symbol,
            "decimals": st.settings.native_token_decimals,
        }
    }
    price = None if st.prices is None else st.prices.price(chain.chain_id, "native", currency)
    if price is not None:
        out["currentPrice"] = money(price, currency, st.settings.money_value == "string")
    return out


def transaction_response(
    st: AppState, chain: ChainRow, found: queries.Found, currency: str
) -> JsonResponse:
    row, transfers, internals = found
    body: dict[str, Any] = details(transfers, internals)
    body["networkTokenDetails"] = network_token_details(st, chain, currency)
    body["nativeTransaction"] = full_native(row)
    return JsonResponse(body)


@router.get(
    "/v1/chains/{chainId}/transactions/{txHash}",
    operation_id="getTransaction",
    responses={200: {"model": GetTransactionResponse}, **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def get_transaction(
    st: State,
    chain_id: ChainIdPath,
    tx_hash: Annotated[
        str,
        Path(alias="txHash", pattern=r"^0x[0-9a-fA-F]{64}$", description="A transaction hash"),
    ],
) -> JsonResponse:
    with chain_conn(st, chain_id) as (conn, chain):
        found = queries.with_details(conn, chain.chain_id, tx_hash=tx_hash.lower())
        if found is None:
            raise not_found(f"txHash: transaction {tx_hash} is not indexed on chain {chain_id}")
        return transaction_response(st, chain, found, "usd")


@router.get(
    "/v1/chains/{chainId}/contracts/{address}/transactions:getDeployment",
    operation_id="getDeploymentTransaction",
    responses={200: {"model": GetTransactionResponse}, **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def get_deployment(
    st: State,
    chain_id: ChainIdPath,
    address: AddressPath,
    currency: Annotated[CurrencyCode, Query()] = "usd",
) -> JsonResponse:
    with chain_conn(st, chain_id) as (conn, chain):
        found = queries.with_details(conn, chain.chain_id, address=address.lower())
        if found is None:
            raise not_found(
                f"address: no indexed deployment of contract {address} on chain {chain_id}"
            )
        return transaction_response(st, chain, found, currency)
