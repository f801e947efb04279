"""The Metrics API chain listing: GET /v2/chains and GET /v2/chains/{chainId}.

Stage: api. Shapes from the SDK (MetricsListChainsResponse, Chain): every field required and a
string where the model says string, so an unknown blockchainId/subnetId is sent as "" (the
identity fills them: store/identity.py). NetworkType has only mainnet and testnet: every
network but mainnet (network 1) is testnet, and so is a chain without a stored network;
`network=fuji` selects network 5 only.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query
from fastapi.responses import Response

from avadata import networks
from avadata.api.deps import Conn
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, bad_request, not_found
from avadata.api.metrics.models import Chain, MetricsListChainsResponse
from avadata.api.metrics.service import Metrics
from avadata.metrics.scopes import network_of
from avadata.store.queries import chains as queries
from avadata.store.queries.chains import ChainRow

router = APIRouter(tags=["Metrics"])


def chain_json(row: ChainRow) -> Chain:
    return {
        "evmChainId": row.chain_id,
        "chainName": row.name or f"Chain {row.chain_id}",
        "blockchainId": row.blockchain_id or "",
        "subnetId": row.subnet_id or "",
        "network": network_of(row.network, row.network_id),
    }


@router.get(
    "/v2/chains",
    operation_id="listChains",
    responses={200: {"model": MetricsListChainsResponse}, **ERROR_RESPONSES},
    response_model=None,
)
def list_chains(
    m: Metrics,
    conn: Conn,
    network: Annotated[Literal["mainnet", "fuji", "testnet"] | None, Query()] = None,
    page_token: Annotated[str | None, Query(alias="pageToken")] = None,
) -> Response:
    if page_token:
        # The listing fits one page, so we never issue a token for it.
        raise bad_request("pageToken: unknown page token; start again from the first page")
    rows = [
        r
        for r in queries.list_chains(conn)
        if network is None or networks.matches(networks.of_chain(r.network_id, r.network), network)
    ]
    return JsonResponse({"chains": [chain_json(r) for r in rows]})


@router.get(
    "/v2/chains/{chainId}",
    operation_id="getChain",
    responses={200: {"model": Chain}, **ERROR_RESPONSES},
    response_model=None,
)
def get_chain(
    m: Metrics,
    conn: Conn,
    chain_id: Annotated[
        str, Path(alias="chainId", pattern="^[0-9]+$", description="An EVM chain ID")
    ],
) -> Response:
    row = queries.find_chain(conn, chain_id) if chain_id.isdigit() else None
    if row is None:
        raise not_found(f"chainId: chain {chain_id!r} is not indexed (see GET /v2/chains)")
    return JsonResponse(chain_json(row))
