"""P- and X-chain blocks: GET /v1/networks/{network}/blockchains/{blockchainId}/blocks,
/blocks/{blockId} and /nodes/{nodeId}/blocks (the blocks a node proposed).

Stage: api. Newest first by Index API position. `blockHash` is the container ID (the one
the chain's txs name as their `blockHash`); a post-fork block's proposervm wrapper gives
`proposerDetails`, with `proposerNodeId` when the block is signed.
"""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Path

from avadata.api.deps import AppState, State, on_store, read_conn
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, bad_request, not_found
from avadata.api.paging import PageSize, PageToken, cut, page, with_token
from avadata.api.patterns import CB58_ID, NODE_ID
from avadata.api.primary import params
from avadata.api.primary.openapi import ok
from avadata.api.primary.routes import BlocksChainId, Network, Timestamp, chain_info
from avadata.decode.codec.ids import parse_node_id
from avadata.decode.codec.reader import DecodeError
from avadata.store.primary.queries import blocks as queries

router = APIRouter(tags=["Primary Network"])


def block_json(r: Any) -> dict[str, Any]:
    parents = orjson.loads(r.parent_ids)
    txs = orjson.loads(r.tx_hashes)
    out: dict[str, Any] = {
        "blockNumber": str(r.height),
        "blockHash": r.block_id,
        "parentHash": parents[0] if parents else "",
        "blockTimestamp": int(r.block_timestamp),
        "blockType": r.block_type,
        "txCount": len(txs),
        "transactions": txs,
        "blockSizeBytes": int(r.size),
    }
    if r.proposer_timestamp is not None:
        details: dict[str, Any] = {
            "proposerId": r.block_id,
            "proposerParentId": r.proposer_parent_id,
            "proposerPChainHeight": int(r.proposer_p_height),
            "proposerTimestamp": int(r.proposer_timestamp),
        }
        if r.proposer_node_id is not None:
            details["proposerNodeId"] = r.proposer_node_id
        out["proposerDetails"] = details
    return out


def _chain(st: AppState, network: str, blockchain_id: str) -> tuple[str, str]:
    net = params.network(network, params.indexed_network(st))
    key = params.chain(net, blockchain_id)
    if key == "C":
        raise bad_request(
            "blockchainId: the C-chain's blocks are served by /v1/chains/{chainId}/blocks"
        )
    return net, key


def _listing(
    st: State,
    net: str,
    key: str,
    filters: dict[str, Any],
    page_token: str | None,
    page_size: int,
) -> JsonResponse:
    pg = page(st, "primary_blocks", {"chain": key, **filters}, page_token, page_size, arity=1)
    if filters["s"] is not None and filters["e"] is not None and filters["s"] > filters["e"]:
        raise bad_request("startTimestamp: must not exceed endTimestamp")
    with read_conn(st) as conn:
        rows = queries.list_blocks(
            conn,
            key,
            int(pg.after[0]) if pg.after else None,
            pg.size + 1,
            start=filters["s"],
            end=filters["e"],
            proposer=filters.get("node"),
        )
    served, token = cut(rows, pg, lambda r: (int(r.idx),))
    body = {"blocks": [block_json(r) for r in served], "chainInfo": chain_info(key, net)}
    return JsonResponse(with_token(body, token))


@router.get(
    "/v1/networks/{network}/blockchains/{blockchainId}/blocks",
    operation_id="listLatestPrimaryNetworkBlocks",
    responses={**ok("ListPrimaryNetworkBlocksResponse"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def list_blocks(
    st: State,
    network: Network,
    blockchain_id: BlocksChainId,
    startTimestamp: Timestamp = None,
    endTimestamp: Timestamp = None,
    pageToken: PageToken = None,
    pageSize: PageSize = 10,
) -> JsonResponse:
    net, key = _chain(st, network, blockchain_id)
    filters = {"s": startTimestamp, "e": endTimestamp}
    return _listing(st, net, key, filters, pageToken, pageSize)


@router.get(
    "/v1/networks/{network}/blockchains/{blockchainId}/nodes/{nodeId}/blocks",
    operation_id="listPrimaryNetworkBlocksByNodeId",
    responses={**ok("ListPrimaryNetworkBlocksResponse"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def list_blocks_by_node(
    st: State,
    network: Network,
    blockchain_id: BlocksChainId,
    node_id: Annotated[str, Path(alias="nodeId", pattern=NODE_ID, description="NodeID-...")],
    startTimestamp: Timestamp = None,
    endTimestamp: Timestamp = None,
    pageToken: PageToken = None,
    pageSize: PageSize = 10,
) -> JsonResponse:
    net, key = _chain(st, network, blockchain_id)
    try:
        parse_node_id(node_id)
    except DecodeError:
        raise bad_request(
            f"nodeId: must be a NodeID-... with a valid CB58 checksum (got {node_id[:80]!r})"
        ) from None
    filters = {"s": startTimestamp, "e": endTimestamp, "node": node_id}
    return _listing(st, net, key, filters, pageToken, pageSize)


@router.get(
    "/v1/networks/{network}/blockchains/{blockchainId}/blocks/{blockId}",
    operation_id="getBlockById",
    responses={**ok("GetPrimaryNetworkBlockResponse"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def get_block(
    st: State,
    network: Network,
    blockchain_id: BlocksChainId,
    block_id: Annotated[
        str,
        Path(
            alias="blockId",
            pattern=f"^[0-9]{{1,18}}$|{CB58_ID}",
            description="CB58 block ID or a height",
        ),
    ],
) -> JsonResponse:
    _, key = _chain(st, network, blockchain_id)
    text = block_id.strip()
    height = int(text) if text.isdigit() and len(text) <= 18 else None
    wanted = None if height is not None else params.block_id(text)
    with read_conn(st) as conn:
        row = queries.block(conn, key, wanted, height)
    if row is None:
        raise not_found(f"blockId: no block {text[:80]} on the {key}-chain")
    return JsonResponse(block_json(row))
