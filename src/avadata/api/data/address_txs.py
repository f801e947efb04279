"""An address's transactions: …/addresses/{address}/transactions (listTransactions, and its V2
under /v2) with each transaction's transfers and internal transactions, and
…/transactions:listNative (the transactions alone).

Stage: api. The transactions are those the address sent or received (docs/compatibility.md),
newest first unless sortOrder=asc; startBlock inclusive, endBlock exclusive. A page's details
come from two more statements for the whole page, not two per transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal, NamedTuple

from fastapi import APIRouter, Query

from avadata.api.data.listing import Extra, ListRoute, mount
from avadata.api.data.models import (
    ListNativeTransactionsResponse,
    ListTransactionDetailsResponse,
    ListTransactionDetailsResponseV2,
)
from avadata.api.data.transactions import native_tx
from avadata.api.data.tx_detail import details
from avadata.api.fastroute import FastRoute
from avadata.api.paging import Position
from avadata.store.queries import address_txs as queries
from avadata.store.queries import tx_detail
from avadata.store.queries.keyset import AnyRow
from avadata.store.types import Connection

router = APIRouter(tags=["EVM transactions"], route_class=FastRoute)

SortOrder = Annotated[Literal["asc", "desc"], Query(description="asc: oldest first")]


class Detailed(NamedTuple):
    """A transaction row with its transfer and internal-transaction rows."""

    tx: AnyRow
    transfers: list[AnyRow]
    internals: list[AnyRow]


def _position(r: Any) -> Position:
    tx = r.tx if isinstance(r, Detailed) else r
    return (int(tx.block_number), int(tx.tx_index))


def _native(
    conn: Connection,
    chain_id: int,
    *,
    address: str,
    start: int | None,
    end: int | None,
    after: Position | None,
    limit: int,
) -> Sequence[AnyRow]:
    return queries.by_address(conn, chain_id, address, start, end, after, limit)


def _detailed(
    conn: Connection,
    chain_id: int,
    *,
    address: str,
    start: int | None,
    end: int | None,
    sortOrder: str,
    after: Position | None,
    limit: int,
    **_filters: Any,
) -> Sequence[Any]:
    rows = queries.by_address(
        conn, chain_id, address, start, end, after, limit, ascending=sortOrder == "asc"
    )
    keys = tx_detail.keys_of(rows)
    transfers = tx_detail.transfers_of(conn, chain_id, keys)
    internals = tx_detail.internals_of(conn, chain_id, keys)
    return [Detailed(r, transfers[k], internals[k]) for r, k in zip(rows, keys, strict=True)]


def _is_spam(r: AnyRow) -> bool:
    # As the balance lists say it: an ERC-20 whose metadata could not be read (no reputation
    # source is known to the store).
    unread = r.token_name is None or r.token_symbol is None or r.token_decimals is None
    return r.standard == "ERC-20" and unread


def _detailed_v2(conn: Connection, chain_id: int, *, filterSpamTokens: bool, **kw: Any) -> Any:
    found: Sequence[Detailed] = _detailed(conn, chain_id, **kw)
    if not filterSpamTokens:
        return found
    return [d._replace(transfers=[t for t in d.transfers if not _is_spam(t)]) for d in found]


def _item(d: Detailed) -> dict[str, Any]:
    return {"nativeTransaction": native_tx(d.tx), **details(d.transfers, d.internals)}


def _item_v2(d: Detailed) -> dict[str, Any]:
    out = _item(d)
    for item in out["erc20Transfers"]:
        # Erc20TokenV2 requires it; the store knows no reputation (docs/compatibility.md).
        item["erc20Token"]["tokenReputation"] = None
    return out


_SORT = Extra("sortOrder", SortOrder, "desc")

mount(
    router,
    ListRoute(
        path="/v1/chains/{chainId}/addresses/{address}/transactions",
        operation_id="listTransactions",
        name="list_transactions",
        model=ListTransactionDetailsResponse,
        kind="address-txs",
        key="transactions",
        arity=2,
        query=_detailed,
        position=_position,
        item=_item,  # type: ignore[arg-type]
        blocks=True,
        extra=(_SORT,),
    ),
    ListRoute(
        path="/v2/chains/{chainId}/addresses/{address}/transactions",
        operation_id="listTransactionsV2",
        name="list_transactions_v2",
        model=ListTransactionDetailsResponseV2,
        kind="address-txs-v2",
        key="transactions",
        arity=2,
        query=_detailed_v2,
        position=_position,
        item=_item_v2,  # type: ignore[arg-type]
        blocks=True,
        extra=(Extra("filterSpamTokens", Annotated[bool, Query()], True), _SORT),
    ),
    ListRoute(
        path="/v1/chains/{chainId}/addresses/{address}/transactions:listNative",
        operation_id="listNativeTransactions",
        name="list_native_transactions",
        model=ListNativeTransactionsResponse,
        kind="address-native-txs",
        key="transactions",
        arity=2,
        query=_native,
        position=_position,
        item=native_tx,
        blocks=True,
    ),
)
