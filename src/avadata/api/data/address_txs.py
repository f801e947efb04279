"""An address's transactions: …/addresses/{address}/transactions (listTransactions, and its V2
under /v2) with each transaction's transfers and internal transactions, and
…/transactions:listNative (the transactions alone).

Stage: api. The transactions are those the address sent or received (docs/compatibility.md),
newest first unless sortOrder=asc; startBlock inclusive, endBlock exclusive. A page's details
come with the page: in the same statement on PostgreSQL, one more for the whole page on SQLite
(store/queries/address_txs.py), never one per transaction.
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
    found = queries.by_address_detailed(
        conn, chain_id, address, start, end, after, limit, ascending=sortOrder == "asc"
    )
    return [Detailed(*d) for d in found]


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
_SPAM = Extra("filterSpamTokens", Annotated[bool, Query()], True)


def _route(
    path: str,
    names: tuple[str, str, type],
    kind: str,
    query: Any,
    item: Any,
    extra: tuple[Extra, ...] = (),
) -> ListRoute:
    """An address's transactions, newest first by (block, index), in a block range: the three
    routes differ only in these (`names`: operation ID, endpoint name, response model)."""
    operation_id, name, model = names
    return ListRoute(
        path=path,
        operation_id=operation_id,
        name=name,
        model=model,
        kind=kind,
        key="transactions",
        arity=2,
        query=query,
        position=_position,
        item=item,
        blocks=True,
        extra=extra,
    )


_V1 = "/v1/chains/{chainId}/addresses/{address}/transactions"
_V2 = "/v2/chains/{chainId}/addresses/{address}/transactions"
_LIST_V1 = ("listTransactions", "list_transactions", ListTransactionDetailsResponse)
_LIST_V2 = ("listTransactionsV2", "list_transactions_v2", ListTransactionDetailsResponseV2)
_NATIVE = ("listNativeTransactions", "list_native_transactions", ListNativeTransactionsResponse)
mount(
    router,
    _route(_V1, _LIST_V1, "address-txs", _detailed, _item, (_SORT,)),
    _route(_V2, _LIST_V2, "address-txs-v2", _detailed_v2, _item_v2, (_SPAM, _SORT)),
    _route(f"{_V1}:listNative", _NATIVE, "address-native-txs", _native, native_tx),
)
