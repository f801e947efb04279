"""GET /v1/chains and /v1/chains/{chainId}: the chains this store indexes.

Stage: api. Not paginated (the SDK's model has no token). Our chains are all EVM chains;
each is shown with its stored identity (store/identity.py): the blockchain ID as
`platformChainId`, its subnet, explorer and native token; `isTestnet` and `network=` follow
its network (every network but mainnet is a test network; an unknown one counts as one).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query

from avadata import networks
from avadata.api.data.models import ChainInfo, DataListChainsResponse, NetworkToken
from avadata.api.deps import ChainIdPath, State, chain_conn, on_store, read_conn
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES
from avadata.api.fastroute import FastRoute
from avadata.settings import Settings
from avadata.store.queries.chains import ChainRow

router = APIRouter(tags=["EVM chains"], route_class=FastRoute)


def network_token(row: ChainRow, settings: Settings) -> NetworkToken:
    """The chain's own native token where its identity names one, else the settings' (AVAX):
    what the chains listing and nativeTokenBalance show."""
    token: NetworkToken = {
        "name": row.token_name or settings.native_token_name,
        "symbol": row.token_symbol or settings.native_token_symbol,
        "decimals": (
            row.token_decimals if row.token_decimals is not None else settings.native_token_decimals
        ),
    }
    if row.token_logo:
        token["logoUri"] = row.token_logo
    return token


def chain_info(row: ChainRow, settings: Settings) -> ChainInfo:
    name = row.name or f"Chain {row.chain_id}"
    network = networks.of_chain(row.network_id, row.network)
    where = f" on {networks.by_id(network).name}" if network is not None else ""
    info: ChainInfo = {
        "chainId": str(row.chain_id),
        "status": "OK",
        "chainName": name,
        "description": f"{name} (EVM chain {row.chain_id}{where}) indexed by avadata",
        "vmName": "EVM",
        "rpcUrl": row.rpc_url or "",
        "isTestnet": network != networks.MAINNET_ID,
        "networkToken": network_token(row, settings),
    }
    if row.blockchain_id:
        info["platformChainId"] = row.blockchain_id
    if row.subnet_id:
        info["subnetId"] = row.subnet_id
    if row.explorer_url:
        info["explorerUrl"] = row.explorer_url
    return info


@router.get(
    "/v1/chains",
    operation_id="supportedChains",
    responses={200: {"model": DataListChainsResponse}, **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def list_chains(
    st: State,
    network: Annotated[Literal["mainnet", "fuji", "testnet"] | None, Query()] = None,
    feature: Annotated[Literal["nftIndexing", "webhooks", "teleporter"] | None, Query()] = None,
) -> JsonResponse:
    with read_conn(st) as conn:
        rows = [
            r
            for r in st.chains.all(conn)
            if network is None
            or networks.matches(networks.of_chain(r.network_id, r.network), network)
        ]
        # No chain advertises an optional feature yet, so a feature filter matches none.
        chains: list[Any] = (
            [] if feature is not None else [chain_info(r, st.settings) for r in rows]
        )
        return JsonResponse({"chains": chains})


@router.get(
    "/v1/chains/{chainId}",
    operation_id="getChainInfo",
    responses={200: {"model": ChainInfo}, **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def get_chain(st: State, chain_id: ChainIdPath) -> JsonResponse:
    with chain_conn(st, chain_id) as (conn, chain):
        return JsonResponse(chain_info(chain, st.settings))
