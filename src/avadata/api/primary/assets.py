"""GET /v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId} and its
/transactions: an X-chain asset's details and the txs that create, emit or consume it.

Stage: api. An asset is known when its CreateAssetTx is indexed (`primary_assets`); AVAX,
created in the X-chain genesis (no index holds it), by its well-known ID per network.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path

from avadata.api.deps import AppState, State, on_store, read_conn
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, bad_request, not_found
from avadata.api.paging import cut, page, with_token
from avadata.api.patterns import CB58_ID
from avadata.api.primary import params
from avadata.api.primary.openapi import ok
from avadata.api.primary.routes import (
    Network,
    TxAsk,
    TxQuery,
    XChainId,
    chain_info,
    tx_facts,
    txs_json,
)
from avadata.api.primary.shapes import AVAX, AVAX_IDS
from avadata.store.primary.queries import txs as queries
from avadata.store.types import Connection

router = APIRouter(tags=["Primary Network"])
AssetId = Annotated[str, Path(alias="assetId", pattern=CB58_ID, description="CB58 asset ID")]


def _asked(st: AppState, network: str, blockchain_id: str, asset_id: str) -> tuple[str, str]:
    net = params.network(network, params.indexed_network(st))
    if params.chain(net, blockchain_id) != "X":
        raise bad_request("blockchainId: assets are X-chain assets (x-chain or its ID)")
    return net, params.asset_id(asset_id) or ""


def _details(conn: Connection, net: str, asset_id: str) -> dict[str, Any]:
    """XChainAssetDetails; a 404 for an asset no indexed CreateAssetTx defines."""
    if asset_id == AVAX_IDS[net]:
        name, symbol, denomination, kind = AVAX
        # Genesis-created: its creation time is in no index (0: unknown); its supply is
        # capped by the protocol.
        return {
            "assetId": asset_id,
            "name": name,
            "symbol": symbol,
            "denomination": denomination,
            "type": kind,
            "createdAtTimestamp": 0,
            "cap": "fixed",
        }
    row = queries.asset(conn, asset_id)
    if row is None:
        raise not_found(f"assetId: no X-chain asset {asset_id} is indexed")
    return {
        "assetId": row.asset_id,
        "name": row.name,
        "symbol": row.symbol,
        "denomination": int(row.denomination),
        "type": row.asset_type,
        "createdAtTimestamp": int(row.created_at),
        "cap": row.cap,
    }


@router.get(
    "/v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId}",
    operation_id="getAssetDetails",
    responses={**ok("XChainAssetDetails"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def asset_details(
    st: State, network: Network, blockchain_id: XChainId, asset_id: AssetId
) -> JsonResponse:
    net, wanted = _asked(st, network, blockchain_id, asset_id)
    with read_conn(st) as conn:
        return JsonResponse(_details(conn, net, wanted))


@router.get(
    "/v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId}/transactions",
    operation_id="listAssetTransactions",
    responses={**ok("ListXChainTransactionsResponse"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def asset_transactions(
    st: State, q: TxQuery, network: Network, blockchain_id: XChainId, asset_id: AssetId
) -> JsonResponse:
    net, wanted = _asked(st, network, blockchain_id, asset_id)
    if q.start is not None and q.end is not None and q.start > q.end:
        raise bad_request("startTimestamp: must not exceed endTimestamp")
    types = params.tx_types(q.tx_types)
    filters = {
        "asset": wanted,
        "types": types,
        "s": q.start,
        "e": q.end,
        "d": q.sort_order != "asc",
    }
    pg = page(st, "primary_asset_txs", filters, q.page_token, q.page_size, arity=3)
    ask = TxAsk(net, "X", [], types, None)
    with read_conn(st) as conn:
        _details(conn, net, wanted)  # an unknown asset is a 404, not an empty list
        rows = queries.list_asset_txs(
            conn,
            queries.Window("X", [], pg.after, pg.size + 1, q.sort_order != "asc"),
            wanted,
            tx_types=types,
            start=q.start,
            end=q.end,
        )
        served, token = cut(
            rows, pg, lambda r: (int(r.block_timestamp), int(r.block_number), int(r.tx_index))
        )
        found = tx_facts(conn, ask, served, token, pg)
    body = {"transactions": txs_json(st, ask, found), "chainInfo": chain_info("X", net)}
    return JsonResponse(with_token(body, found.token))
