"""Across every indexed chain: the chains an address appears on (/v1/address/{address}/chains),
the latest transactions (/v1/transactions) and blocks (/v1/blocks), each also under the older
path the SDK still calls (/v1/chains/address/{address}, /v1/chains/allTransactions,
/v1/chains/allBlocks).

Stage: api. Mounted before the chains router: the older paths would otherwise be read as
/v1/chains/{chainId}. The latest lists merge each chain's newest-first page by block time
(then chain, block, index, newest first). Their page token holds one position per chain, so
every chain's next page is one keyset seek whatever the depth; a token is bound to the set of
chains it was made for (a chain indexed since is a 400 asking to start over).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query

from avadata import networks
from avadata.api.data.blocks import evm_block
from avadata.api.data.chains import chain_info
from avadata.api.data.models import (
    ListAddressChainsResponse,
    ListEvmBlocksResponse,
    ListNativeTransactionsResponse,
)
from avadata.api.data.transactions import native_tx
from avadata.api.deps import AddressPath, AppState, State, on_store, read_conn
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES
from avadata.api.fastroute import FastRoute
from avadata.api.paging import PageSize, PageToken, Position, page, with_token
from avadata.store.queries import blocks as block_queries
from avadata.store.queries import evm_txs as tx_queries
from avadata.store.queries import presence
from avadata.store.queries.keyset import AnyRow
from avadata.store.types import Connection

router = APIRouter(tags=["EVM chains"], route_class=FastRoute)

Network = Annotated[Literal["mainnet", "fuji", "testnet"] | None, Query()]
Status = Annotated[Literal["failed", "success"] | None, Query()]


def _address_chains(st: AppState, address: str) -> JsonResponse:
    with read_conn(st) as conn:
        seen = presence.chains_seen(conn, address.lower())
        body: ListAddressChainsResponse = {
            "indexedChains": [chain_info(r, st.settings) for r in seen],
            # Every chain the store knows is indexed: none is left out for lack of indexing.
            "unindexedChains": [],
        }
        return JsonResponse(body)


# The position of a chain nothing was served from yet: above every block.
_TOP = 2**62

Fetch = Callable[[Connection, int, Position | None, int, dict[str, Any]], Sequence[AnyRow]]


class Merge:
    """How one latest-list reads a chain: `fetch(conn, chain_id, after, limit, filters)` gives
    its rows newest first after a position of `width` values; `key` is a row's position in its
    chain, `when` its block time."""

    def __init__(
        self,
        kind: str,
        width: int,
        fetch: Fetch,
        key: Callable[[AnyRow], Position],
        when: Callable[[AnyRow], int],
    ) -> None:
        self.kind, self.width, self.fetch, self.key, self.when = kind, width, fetch, key, when

    def _order(self, found: tuple[int, AnyRow]) -> tuple[Any, ...]:
        row = found[1]
        return (self.when(row), int(row.chain_id), *self.key(row))

    def page(
        self,
        st: AppState,
        conn: Connection,
        chains: list[int],
        filters: dict[str, Any],
        token: str | None,
        size: int,
    ) -> tuple[list[AnyRow], str | None]:
        """The newest `size` rows over `chains` and the next page's token."""
        w = self.width
        pg = page(st, self.kind, {"chains": chains, **filters}, token, size, arity=w * len(chains))
        at: list[Position | None] = [
            None if pg.after is None else tuple(pg.after[i * w : (i + 1) * w])
            for i in range(len(chains))
        ]
        found: list[tuple[int, AnyRow]] = []
        for i, chain_id in enumerate(chains):
            found += [(i, r) for r in self.fetch(conn, chain_id, at[i], size + 1, filters)]
        found.sort(key=self._order, reverse=True)
        served = found[:size]
        if len(found) <= size:
            return [r for _, r in served], None
        positions: list[Position] = [(_TOP, *[0] * (w - 1)) if p is None else p for p in at]
        for i, r in served:
            positions[i] = self.key(r)
        return [r for _, r in served], pg.token(tuple(v for p in positions for v in p))


def _chain_ids(st: AppState, conn: Connection, network: str | None) -> list[int]:
    """The chains a `network=` selects, as /v1/chains selects them (networks.matches)."""
    return [
        r.chain_id
        for r in st.chains.all(conn)
        if network is None or networks.matches(networks.of_chain(r.network_id, r.network), network)
    ]


def _latest_txs(
    conn: Connection, chain_id: int, after: Position | None, limit: int, filters: dict[str, Any]
) -> Sequence[AnyRow]:
    status = filters["status"]
    success = None if status is None else status == "success"
    return tx_queries.list_latest(conn, chain_id, success, after, limit)


def _latest_blocks(
    conn: Connection, chain_id: int, after: Position | None, limit: int, _f: dict[str, Any]
) -> Sequence[AnyRow]:
    return block_queries.list_blocks(conn, chain_id, after, limit)


_TXS = Merge(
    "all-latest-txs",
    2,
    _latest_txs,
    lambda r: (int(r.block_number), int(r.tx_index)),
    lambda r: int(r.block_timestamp),
)
_BLOCKS = Merge(
    "all-latest-blocks", 1, _latest_blocks, lambda r: (int(r.number),), lambda r: int(r.timestamp)
)


def _list_txs(
    st: AppState, token: str | None, size: int, network: str | None, status: str | None
) -> JsonResponse:
    with read_conn(st) as conn:
        chains = _chain_ids(st, conn, network)
        filters = {"network": network, "status": status}
        rows, next_token = _TXS.page(st, conn, chains, filters, token, size)
        return JsonResponse(with_token({"transactions": [native_tx(r) for r in rows]}, next_token))


def _list_blocks(st: AppState, token: str | None, size: int, network: str | None) -> JsonResponse:
    with read_conn(st) as conn:
        chains = _chain_ids(st, conn, network)
        rows, next_token = _BLOCKS.page(st, conn, chains, {"network": network}, token, size)
        return JsonResponse(with_token({"blocks": [evm_block(r) for r in rows]}, next_token))


# Each operation under its path and the SDK's older one (same parameters, same body).
for _path, _op in (
    ("/v1/address/{address}/chains", "listAddressChains"),
    ("/v1/chains/address/{address}", "getAddressChains"),
):

    @router.get(
        _path,
        operation_id=_op,
        responses={200: {"model": ListAddressChainsResponse}, **ERROR_RESPONSES},
        response_model=None,
    )
    @on_store
    def address_chains(st: State, address: AddressPath) -> JsonResponse:
        return _address_chains(st, address)


for _path, _op in (
    ("/v1/transactions", "listLatestTransactionsAllChains"),
    ("/v1/chains/allTransactions", "listAllLatestTransactions"),
):

    @router.get(
        _path,
        operation_id=_op,
        responses={200: {"model": ListNativeTransactionsResponse}, **ERROR_RESPONSES},
        response_model=None,
    )
    @on_store
    def latest_transactions(
        st: State,
        pageToken: PageToken = None,
        pageSize: PageSize = 10,
        network: Network = None,
        status: Status = None,
    ) -> JsonResponse:
        return _list_txs(st, pageToken, pageSize, network, status)


for _path, _op in (
    ("/v1/blocks", "listLatestBlocksAllChains"),
    ("/v1/chains/allBlocks", "listAllLatestBlocks"),
):

    @router.get(
        _path,
        operation_id=_op,
        responses={200: {"model": ListEvmBlocksResponse}, **ERROR_RESPONSES},
        response_model=None,
    )
    @on_store
    def latest_blocks(
        st: State, pageToken: PageToken = None, pageSize: PageSize = 10, network: Network = None
    ) -> JsonResponse:
        return _list_blocks(st, pageToken, pageSize, network)
