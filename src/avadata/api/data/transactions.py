"""GET /v1/chains/{chainId}/transactions: the latest transactions, optionally by status.

Stage: api. Also holds the NativeTransaction shape, shared with the block transactions route.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Annotated, Any, Literal, cast

from fastapi import APIRouter, Query

from avadata.api.data.listing import Extra, ListRoute, mount
from avadata.api.data.models import ListNativeTransactionsResponse, Method, NativeTransaction
from avadata.api.data.shapes import rich
from avadata.api.fastroute import FastRoute
from avadata.api.paging import Position
from avadata.store.queries import evm_txs as queries
from avadata.store.queries.keyset import AnyRow
from avadata.store.types import Connection

router = APIRouter(tags=["EVM transactions"], route_class=FastRoute)

# The names the reference gives these two kinds when no signature applies.
_DEFAULT_METHOD_NAMES = {
    "NATIVE_TRANSFER": "Native Transfer",
    "CONTRACT_CREATION": "Contract Created",
}


@functools.lru_cache(maxsize=4096)
def _method(call_type: str, method_hash: str | None, method_name: str | None) -> Method:
    # Cached because a page repeats a few methods (a whole block: 50 items). Items share the
    # dict: responses are rendered as built and nothing changes an item afterwards.
    out: dict[str, Any] = {"callType": call_type, "methodHash": method_hash or ""}
    name = method_name or _DEFAULT_METHOD_NAMES.get(call_type)
    if name:
        out["methodName"] = name
    return cast(Method, out)


def native_tx(row: AnyRow) -> NativeTransaction:
    return _tx(str(row.block_number), row.block_timestamp, row.block_hash, str(row.chain_id), row)


def block_txs(
    chain_id: int, number: int, block_hash: str, timestamp: int, rows: Sequence[AnyRow]
) -> list[NativeTransaction]:
    """A block's transactions from rows whose block columns are not read (whole_block)."""
    n, c = str(number), str(chain_id)
    return [_tx(n, timestamp, block_hash, c, r) for r in rows]


def _tx(number: str, timestamp: int, block_hash: str, chain: str, row: AnyRow) -> NativeTransaction:
    # Integer columns come back as ints on both engines: no int() per value (a whole block
    # shapes 50 of these).
    # A creation's `to` is the created contract (the SDK requires a `to`).
    to = row.to_address or row.contract_address
    return {
        "blockNumber": number,
        "blockTimestamp": timestamp,
        "blockHash": block_hash,
        "chainId": chain,
        "blockIndex": row.tx_index,
        "txHash": row.hash,
        "txStatus": "1" if row.success else "0",
        "txType": row.tx_type,
        "gasLimit": str(row.gas_limit),
        "gasUsed": str(row.gas_used),
        "gasPrice": str(row.gas_price),
        "nonce": str(row.nonce),
        "from": rich(row.from_address),
        "to": rich(to),
        "method": _method(row.call_type, row.method_hash, row.method_name),
        "value": str(row.value),
    }


def _latest(
    conn: Connection,
    chain_id: int,
    *,
    status: str | None,
    after: Position | None,
    limit: int,
) -> Sequence[AnyRow]:
    success = None if status is None else status == "success"
    return queries.list_latest(conn, chain_id, success, after, limit)


mount(
    router,
    ListRoute(
        path="/v1/chains/{chainId}/transactions",
        operation_id="listLatestTransactions",
        name="list_latest",
        model=ListNativeTransactionsResponse,
        kind="latest-txs",
        key="transactions",
        arity=2,
        query=_latest,
        position=lambda r: (int(r.block_number), int(r.tx_index)),
        item=native_tx,
        address=None,
        extra=(Extra("status", Annotated[Literal["failed", "success"] | None, Query()], None),),
    ),
)
