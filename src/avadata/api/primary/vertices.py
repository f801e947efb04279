"""X-chain DAG-era vertices: GET /v1/networks/{network}/blockchains/{blockchainId}/vertices,
/vertices/{vertexHash} and /vertices:listByHeight.

Stage: api. Newest first by `vertexIndex` (the vertex's position in the node's X/vtx index);
a vertex carries no time, so `vertexTimestamp` is the node's acceptance time (as its txs').
"""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Path, Query

from avadata.api.deps import AppState, State, on_store, read_conn
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, bad_request, not_found
from avadata.api.paging import PageSize, PageToken, cut, page, with_token
from avadata.api.patterns import CB58_ID
from avadata.api.primary import params
from avadata.api.primary.openapi import ok
from avadata.api.primary.routes import Network, SortOrder, XChainId, chain_info
from avadata.store.primary.queries import blocks as queries

router = APIRouter(tags=["Primary Network"])
VERTICES = "X/vtx"


def vertex_json(r: Any) -> dict[str, Any]:
    txs = orjson.loads(r.tx_hashes)
    return {
        "vertexHash": r.block_id,
        "parentHashes": orjson.loads(r.parent_ids),
        "vertexHeight": int(r.height),
        "vertexIndex": int(r.idx),
        "vertexTimestamp": int(r.block_timestamp),
        "txCount": len(txs),
        "transactions": txs,
        "vertexSizeBytes": int(r.size),
    }


def _x(st: AppState, network: str, blockchain_id: str) -> str:
    net = params.network(network, params.indexed_network(st))
    if params.chain(net, blockchain_id) != "X":
        raise bad_request("blockchainId: vertices are the X-chain's (x-chain or its ID)")
    return net


def _page(
    st: State,
    net: str,
    height: int | None,
    page_token: str | None,
    page_size: int,
    desc: bool,
) -> JsonResponse:
    filters = {"h": height, "d": desc}
    pg = page(st, "primary_vertices", filters, page_token, page_size, arity=1)
    with read_conn(st) as conn:
        rows = queries.list_blocks(
            conn,
            VERTICES,
            int(pg.after[0]) if pg.after else None,
            pg.size + 1,
            desc=desc,
            height=height,
        )
    served, token = cut(rows, pg, lambda r: (int(r.idx),))
    body = {"vertices": [vertex_json(r) for r in served], "chainInfo": chain_info("X", net)}
    return JsonResponse(with_token(body, token))


@router.get(
    "/v1/networks/{network}/blockchains/{blockchainId}/vertices",
    operation_id="listLatestXChainVertices",
    responses={**ok("ListXChainVerticesResponse"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def list_vertices(
    st: State,
    network: Network,
    blockchain_id: XChainId,
    pageToken: PageToken = None,
    pageSize: PageSize = 10,
) -> JsonResponse:
    return _page(st, _x(st, network, blockchain_id), None, pageToken, pageSize, True)


@router.get(
    "/v1/networks/{network}/blockchains/{blockchainId}/vertices:listByHeight",
    operation_id="getVertexByHeight",
    responses={**ok("ListXChainVerticesResponse"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def vertices_at_height(
    st: State,
    network: Network,
    blockchain_id: XChainId,
    vertexHeight: Annotated[int, Query(ge=0, le=2**63 - 1)],
    pageToken: PageToken = None,
    pageSize: PageSize = 10,
    sortOrder: SortOrder = None,
) -> JsonResponse:
    net = _x(st, network, blockchain_id)
    return _page(st, net, vertexHeight, pageToken, pageSize, sortOrder != "asc")


@router.get(
    "/v1/networks/{network}/blockchains/{blockchainId}/vertices/{vertexHash}",
    operation_id="getVertexByHash",
    responses={**ok("XChainVertex"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def get_vertex(
    st: State,
    network: Network,
    blockchain_id: XChainId,
    vertex_hash: Annotated[
        str, Path(alias="vertexHash", pattern=CB58_ID, description="CB58 vertex ID")
    ],
) -> JsonResponse:
    _x(st, network, blockchain_id)
    wanted = params.vertex_hash(vertex_hash)
    with read_conn(st) as conn:
        row = queries.block(conn, VERTICES, wanted, None)
    if row is None:
        raise not_found(f"vertexHash: no vertex {wanted} on the X-chain")
    return JsonResponse(vertex_json(row))
