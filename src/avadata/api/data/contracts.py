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
from avadata.api.fastroute import FastRoute
from avadata.store.queries import contracts as queries
from avadata.store.queries.keyset import AnyRow

router = APIRouter(tags=["EVM contracts"], route_class=FastRoute)


def deployed_contract(row: AnyRow) -> AnyContract:
    details: dict[str, Any] = {"txHash": row.tx_hash, "deployerAddress": checksum(row.deployer)}
    if row.deployer_contract:
        details["deployerContractAddress"] = checksum(row.deployer_contract)
    out: dict[str, Any] = {"address": checksum(row.address), "deploymentDetails": details}
    standard = row.token_standard
    if standard == "ERC-20" and row.token_decimals is None:
        standard = None
    out["ercType"] = standard or "UNKNOWN"
    if row.token_name is not None:
        out["name"] = row.token_name
    if standard is not None and row.token_symbol is not None:
        out["symbol"] = row.token_symbol
    if standard == "ERC-20":
        out["decimals"] = int(row.token_decimals)
    return cast(AnyContract, out)


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
