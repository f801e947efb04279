"""GET /v1/chains/{chainId}/contracts/{address}/deployments: contracts an address deployed.

Stage: api. `{address}` is the deployer: the sender of the creating transaction, directly or
through a factory. Items are the SDK's union by literal ercType; an ERC-20 whose decimals
could not be read is listed as UNKNOWN, since the ERC-20 member requires decimals.
"""

from __future__ import annotations

from typing import Any, cast

from fastapi import APIRouter

from avadata.api.data.listing import ListRoute, mount, trace_position
from avadata.api.data.models import AnyContract, ListContractsResponse
from avadata.api.data.shapes import checksum
from avadata.api.deps import AddressPath, ChainIdPath, State, chain_conn, on_store
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, not_found
from avadata.api.fastroute import FastRoute
from avadata.store.queries import contracts as queries
from avadata.store.queries import holdings
from avadata.store.queries.keyset import AnyRow

router = APIRouter(tags=["EVM contracts"], route_class=FastRoute)


def _details(deployer: str, deployer_contract: str | None, tx_hash: str) -> dict[str, Any]:
    details: dict[str, Any] = {"txHash": tx_hash, "deployerAddress": checksum(deployer)}
    if deployer_contract:
        details["deployerContractAddress"] = checksum(deployer_contract)
    return details


def _contract(
    address: str,
    details: dict[str, Any] | None,
    standard: str | None,
    name: str | None,
    symbol: str | None,
    decimals: int | None,
) -> AnyContract:
    out: dict[str, Any] = {"address": checksum(address)}
    if details is not None:
        out["deploymentDetails"] = details
    if standard == "ERC-20" and decimals is None:
        standard = None
    out["ercType"] = standard or "UNKNOWN"
    if name is not None:
        out["name"] = name
    if standard is not None and symbol is not None:
        out["symbol"] = symbol
    if standard == "ERC-20":
        out["decimals"] = int(cast(int, decimals))
    return cast(AnyContract, out)


def deployed_contract(row: AnyRow) -> AnyContract:
    details = _details(row.deployer, row.deployer_contract, row.tx_hash)
    return _contract(
        row.address,
        details,
        row.token_standard,
        row.token_name,
        row.token_symbol,
        row.token_decimals,
    )


mount(
    router,
    ListRoute(
        path="/v1/chains/{chainId}/contracts/{address}/deployments",
        operation_id="listContractDeployments",
        name="list_deployments",
        model=ListContractsResponse,
        kind="deployments",
        key="contracts",
        arity=3,
        query=queries.deployed_by,
        position=trace_position,
        item=deployed_contract,
        address="deployer",
    ),
)


@router.get(
    "/v1/chains/{chainId}/addresses/{address}",
    operation_id="getContractMetadata",
    responses={200: {"model": AnyContract}, **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def get_contract(st: State, chain_id: ChainIdPath, address: AddressPath) -> JsonResponse:
    """The contract's token standard and facts (read from the chain by the indexer when it
    first saw the token) and its deployment; 404 when the store knows neither."""
    with chain_conn(st, chain_id) as (conn, chain):
        deployed, token = holdings.contract(conn, chain.chain_id, address.lower())
        if deployed is None and token is None:
            raise not_found(f"address: no indexed contract {address} on chain {chain_id}")
        details = None
        if deployed is not None:
            details = _details(deployed.deployer, deployed.deployer_contract, deployed.tx_hash)
        if token is None:
            return JsonResponse(_contract(address, details, None, None, None, None))
        found = _contract(
            address, details, token.standard, token.name, token.symbol, token.decimals
        )
        return JsonResponse(found)
