"""GET /v1/chains/{chainId}/blocks and /blocks/{blockId}/transactions.

Stage: api. Blocks come newest first (number order is timestamp order). A block's
transactions come in block order; pageSize 0 (the SDK's default, always sent) returns every
transaction of the block in one response, since the SDK never follows a token on this route.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import APIRouter, Path

from avadata.api.data.listing import ListRoute, keyset_page, mount
from avadata.api.data.models import EvmBlock, ListEvmBlocksResponse, ListNativeTransactionsResponse
from avadata.api.data.transactions import block_txs, native_tx
from avadata.api.deps import ChainIdPath, State, chain_conn, on_store
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, ApiError, bad_request, not_found
from avadata.api.fastroute import FastRoute
from avadata.api.paging import BlockTxPageSize, PageToken
from avadata.store.queries import blocks as queries
from avadata.store.queries import evm_txs as tx_queries
from avadata.store.queries.keyset import AnyRow
from avadata.store.types import Connection

router = APIRouter(tags=["EVM blocks"], route_class=FastRoute)

# fullmatch: a final newline matches `$`, and str.isdigit() holds for digits int() refuses.
_NUMBER_RE = re.compile(r"[0-9]{1,18}")
_HASH_RE = re.compile(r"0x[0-9a-fA-F]{64}")


def evm_block(row: AnyRow) -> EvmBlock:
    base_fee = int(row.base_fee or 0)
    out: EvmBlock = {
        "chainId": str(row.chain_id),
        "blockNumber": str(row.number),
        "blockTimestamp": int(row.timestamp),
        "blockHash": row.hash,
        "txCount": int(row.tx_count),
        "baseFee": str(base_fee),
        "gasUsed": str(row.gas_used),
        "gasLimit": str(row.gas_limit),
        # The burnt part of the fees: baseFee x gasUsed (feesSpent is what senders paid).
        "gasCost": str(base_fee * int(row.gas_used)),
        "parentHash": row.parent_hash,
        "feesSpent": str(row.fees_spent),
        "cumulativeTransactions": str(row.cumulative_txs),
    }
    if row.time_ms is not None:  # a header with timeMilliseconds (ACP-226, Granite)
        out["blockTimestampMilliseconds"] = int(row.time_ms)
    return out


mount(
    router,
    ListRoute(
        path="/v1/chains/{chainId}/blocks",
        operation_id="getLatestBlocks",
        name="list_blocks",
        model=ListEvmBlocksResponse,
        kind="blocks",
        key="blocks",
        arity=1,
        query=queries.list_blocks,
        position=lambda r: (int(r.number),),
        item=evm_block,
        address=None,
    ),
)


def _block_key(block_id: str) -> dict[str, Any]:
    """A block number or hash as the store's lookups take it; 400 if neither."""
    if _NUMBER_RE.fullmatch(block_id):
        return {"number": int(block_id)}
    if _HASH_RE.fullmatch(block_id):
        return {"block_hash": block_id.lower()}
    raise bad_request(
        f"blockId: must be a block number or a 0x-prefixed 32-byte block hash (got {block_id!r})"
    )


def _unknown(block_id: str, chain_id: int) -> ApiError:
    return not_found(f"blockId: block {block_id} is not indexed on chain {chain_id}")


def resolve_block(conn: Connection, chain_id: int, block_id: str) -> AnyRow:
    """A block number or hash -> the stored block (every column); 400 if neither, 404 if
    unknown."""
    head = queries.find_block(conn, chain_id, **_block_key(block_id))
    if head is None:
        raise _unknown(block_id, chain_id)
    return head


BlockIdPath = Annotated[
    str,
    Path(
        alias="blockId",
        pattern=f"^(?:{_NUMBER_RE.pattern}|{_HASH_RE.pattern})$",
        description="A block number or a 0x-prefixed 32-byte block hash",
    ),
]


@router.get(
    "/v1/chains/{chainId}/blocks/{blockId}",
    operation_id="getBlock",
    responses={200: {"model": EvmBlock}, **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def get_block(st: State, chain_id: ChainIdPath, block_id: BlockIdPath) -> JsonResponse:
    with chain_conn(st, chain_id) as (conn, chain):
        return JsonResponse(evm_block(resolve_block(conn, chain.chain_id, block_id)))


@router.get(
    "/v1/chains/{chainId}/blocks/{blockId}/transactions",
    operation_id="getTransactionsForBlock",
    responses={200: {"model": ListNativeTransactionsResponse}, **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def block_transactions(
    st: State,
    chain_id: ChainIdPath,
    block_id: BlockIdPath,
    pageToken: PageToken = None,
    pageSize: BlockTxPageSize = 0,
) -> JsonResponse:
    with chain_conn(st, chain_id) as (conn, chain):
        if pageSize == 0:
            # The block and its transactions in one statement.
            found = tx_queries.whole_block(conn, chain.chain_id, **_block_key(block_id))
            if found is None:
                raise _unknown(block_id, chain.chain_id)
            if pageToken:
                raise bad_request(
                    "pageToken: pageSize 0 returns the whole block; there is no page 2"
                )
            head, rows = found
            number = int(head.block_number)
            txs = block_txs(chain.chain_id, number, head.block_hash, head.block_timestamp, rows)
            return JsonResponse({"transactions": txs})
        number = int(resolve_block(conn, chain.chain_id, block_id).number)
        return keyset_page(
            st,
            "block-txs",
            {"chain": chain.chain_id, "block": number},
            pageToken,
            pageSize,
            arity=1,
            fetch=lambda after, limit: tx_queries.list_in_block(
                conn, chain.chain_id, number, after, limit
            ),
            position=lambda r: (int(r.tx_index),),
            key="transactions",
            item=native_tx,
        )
