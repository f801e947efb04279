"""GET /v1/chains/{chainId}/contracts/{address}/deployments: contracts an address deployed.

Stage: api. `{address}` is the deployer: the sender of the creating transaction, directly or
through a factory. Items are the SDK's union by literal ercType; an ERC-20 whose decimals
could not be read is listed as UNKNOWN, since the ERC-20 member requires decimals.
"""

from __future__ import annotations

from typing import Any, cast

from fastapi import APIRouter

from avadata.api.data.listing import keyset_page
from avadata.api.data.models import AnyContract, ListContractsResponse
from avadata.api.data.shapes import checksum
from avadata.api.deps import AddressPath, ChainIdPath, State, chain_conn, on_store
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES
from avadata.api.fastroute import FastRoute
from avadata.api.paging import PageSize, PageToken
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


@router.get(
    "/v1/chains/{chainId}/contracts/{address}/deployments",
    operation_id="listContractDeployments",
    responses={200: {"model": ListContractsResponse}, **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def list_deployments(
    st: State,
    chain_id: ChainIdPath,
    address: AddressPath,
    pageToken: PageToken = None,
    pageSize: PageSize = 10,
) -> JsonResponse:
    with chain_conn(st, chain_id) as (conn, chain):
        deployer = address.lower()
        return keyset_page(
            st,
            "deployments",
            {"chain": chain.chain_id, "deployer": deployer},
            pageToken,
            pageSize,
            arity=3,
            fetch=lambda after, limit: queries.deployed_by(
                conn, chain.chain_id, deployer, after, limit
            ),
            position=lambda r: (int(r.block_number), int(r.tx_index), int(r.trace_index)),
            key="contracts",
            item=deployed_contract,
        )
