"""GET …/addresses/{address}/transactions:listInternals.

Stage: api. Lists only what the reference lists: CALL/CALLCODE frames with non-zero value and
CREATE/CREATE2/CREATE3 frames, below the root frame (the root is the transaction itself);
a frame that reverted (or whose ancestor did) is listed with isReverted true.
"""

from __future__ import annotations

from typing import cast

from fastapi import APIRouter

from avadata.api.data.listing import ListRoute, mount, trace_position
from avadata.api.data.models import InternalTransaction, ListInternalTransactionsResponse
from avadata.api.data.shapes import internal_detail, tx_ref
from avadata.api.fastroute import FastRoute
from avadata.store.queries import internals as queries
from avadata.store.queries.keyset import AnyRow

router = APIRouter(tags=["EVM internal transactions"], route_class=FastRoute)


def internal_tx(row: AnyRow) -> InternalTransaction:
    # The position first, then the frame as a transaction's detail shows it (its from and to
    # keep tx_ref's places).
    item = tx_ref(row)
    item.update(internal_detail(row))
    return cast(InternalTransaction, item)


mount(
    router,
    ListRoute(
        path="/v1/chains/{chainId}/addresses/{address}/transactions:listInternals",
        operation_id="listInternalTransactions",
        name="list_internals",
        model=ListInternalTransactionsResponse,
        kind="internals",
        key="transactions",
        arity=3,
        query=queries.by_address,
        position=trace_position,
        item=internal_tx,
        blocks=True,
    ),
)
