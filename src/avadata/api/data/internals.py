"""GET …/addresses/{address}/transactions:listInternals.

Stage: api. Lists only what the reference lists: CALL/CALLCODE frames with non-zero value and
CREATE/CREATE2/CREATE3 frames, below the root frame (the root is the transaction itself);
a frame that reverted (or whose ancestor did) is listed with isReverted true.
"""

from __future__ import annotations

from typing import cast

from fastapi import APIRouter

from avadata.api.data.listing import EndBlock, StartBlock, block_range_page
from avadata.api.data.models import (
    InternalTransaction,
    InternalTxType,
    ListInternalTransactionsResponse,
)
from avadata.api.data.shapes import tx_ref
from avadata.api.deps import AddressPath, ChainIdPath, State, chain_conn, on_store
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES
from avadata.api.fastroute import FastRoute
from avadata.api.paging import PageSize, PageToken
from avadata.store.queries import internals as queries
from avadata.store.queries.keyset import AnyRow

router = APIRouter(tags=["EVM internal transactions"], route_class=FastRoute)

_OPS = frozenset(
    {"UNKNOWN", "CALL", "CREATE", "CREATE2", "CREATE3", "CALLCODE", "DELEGATECALL", "STATICCALL"}
)


def internal_tx(row: AnyRow) -> InternalTransaction:
    op = str(row.call_type).upper()
    item = tx_ref(row)
    item.update(
        internalTxType=cast(InternalTxType, op if op in _OPS else "UNKNOWN"),
        value=str(row.value),
        isReverted=bool(row.reverted),
        gasUsed=str(row.gas_used),
        gasLimit=str(row.gas),
    )
    return cast(InternalTransaction, item)


@router.get(
    "/v1/chains/{chainId}/addresses/{address}/transactions:listInternals",
    operation_id="listInternalTransactions",
    responses={200: {"model": ListInternalTransactionsResponse}, **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def list_internals(
    st: State,
    chain_id: ChainIdPath,
    address: AddressPath,
    startBlock: StartBlock = None,
    endBlock: EndBlock = None,
    pageToken: PageToken = None,
    pageSize: PageSize = 10,
) -> JsonResponse:
    with chain_conn(st, chain_id) as (conn, chain):
        who = address.lower()
        return block_range_page(
            st,
            "internals",
            {"chain": chain.chain_id, "address": who},
            startBlock,
            endBlock,
            pageToken,
            pageSize,
            fetch=lambda s, e, after, limit: queries.by_address(
                conn, chain.chain_id, who, s, e, after, limit
            ),
            position=lambda r: (int(r.block_number), int(r.tx_index), int(r.trace_index)),
            key="transactions",
            item=internal_tx,
        )
