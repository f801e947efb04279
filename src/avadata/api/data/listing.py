"""The list routes, declared as data: one `ListRoute` per endpoint, mounted by `mount`.

Stage: api. Every list route does the same around its query: find the chain (404 when
unknown), check the block range, decode the page token against the route and its filters,
fetch one row more than the page, cut it off, shape the items, make nextPageToken (the paging
itself is api/paging.py's). A declaration says only what differs: the path, the query, the
row's keyset position and item shape, and the parameters beyond the common ones.

The endpoint `mount` builds keeps what the hand-written ones had: its parameters are declared
to FastAPI in the same order (so the OpenAPI document is unchanged), its body runs through
`on_store` and its requests through `FastRoute`'s fast path.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, NamedTuple, TypeVar

from fastapi import APIRouter, Query

from avadata.api.deps import AddressPath, AppState, ChainIdPath, State, chain_conn, on_store
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, bad_request
from avadata.api.paging import PageSize, PageToken, Position, cut, page, with_token
from avadata.store.queries.keyset import AnyRow

R = TypeVar("R")

# Block numbers are stored as 64-bit integers: a larger bound could only match nothing, and
# SQLite refuses to bind it, so it is a 400 rather than a failed query.
MAX_BLOCK = 2**63 - 1
StartBlock = Annotated[
    int | None,
    Query(alias="startBlock", ge=0, le=MAX_BLOCK, description="First block, inclusive"),
]
EndBlock = Annotated[
    int | None,
    Query(alias="endBlock", ge=0, le=MAX_BLOCK, description="Last block, exclusive"),
]


def trace_position(r: AnyRow) -> Position:
    """The keyset position of a row keyed by call frame: (block, transaction, frame)."""
    return (int(r.block_number), int(r.tx_index), int(r.trace_index))


def block_range(start: int | None, end: int | None) -> tuple[int | None, int | None]:
    """The seed's rules: start inclusive, end exclusive, either may be open."""
    if start is not None and end is not None and start > end:
        raise bad_request(
            f"startBlock: must not exceed endBlock (startBlock={start}, endBlock={end})"
        )
    return start, end


def keyset_page(
    st: AppState,
    kind: str,
    filters: dict[str, Any],
    page_token: str | None,
    page_size: int,
    *,
    arity: int,
    fetch: Callable[[Position | None, int], Sequence[R]],
    position: Callable[[R], Position],
    key: str,
    item: Callable[[R], Any],
) -> JsonResponse:
    """A list route's body `{key: [item(row)...], nextPageToken?}`: `fetch(after, limit)` runs
    the keyset query; the token binds `kind` and `filters` (a token of another query is a 400)."""
    pg = page(st, kind, filters, page_token, page_size, arity=arity)
    rows, token = cut(fetch(pg.after, pg.size + 1), pg, position)
    return JsonResponse(with_token({key: [item(r) for r in rows]}, token))


class Extra(NamedTuple):
    """A query parameter of one list route beyond the common ones: its value is a filter (it
    binds the page token) and is passed to the query under `name`."""

    name: str
    annotation: Any
    default: Any = None


@dataclass(frozen=True, slots=True)
class ListRoute:
    """One list endpoint. Its query is called as `query(conn, chain_id, **filters, **fixed,
    after=, limit=)`, the filters being the `{address}` segment (lower-cased, under the name
    `address` gives), `start` and `end` (with `blocks`) and the `extra` parameters."""

    path: str
    operation_id: str
    # The endpoint's name: OpenAPI's summary is made from it ("list_erc20" -> "List Erc20").
    name: str
    model: type  # the documented 200 body
    kind: str  # what the page token is bound to, besides the filters
    key: str  # the body's list member
    arity: int  # the length of a keyset position
    query: Callable[..., Sequence[AnyRow]]
    position: Callable[[AnyRow], Position]
    item: Callable[[AnyRow], Any]
    address: str | None = "address"  # the filter the {address} segment is; None: no segment
    blocks: bool = False  # startBlock and endBlock, [start, end)
    extra: tuple[Extra, ...] = ()
    fixed: Mapping[str, Any] = field(default_factory=dict)  # query arguments, not filters

    def respond(
        self, st: AppState, chain_id: str, token: str | None, size: int, selected: dict[str, Any]
    ) -> JsonResponse:
        """The page of rows `selected` (the filters but the chain) picks on chain `chain_id`."""
        with chain_conn(st, chain_id) as (conn, chain):
            if self.blocks:
                block_range(selected["start"], selected["end"])
            return keyset_page(
                st,
                self.kind,
                {"chain": chain.chain_id, **selected},
                token,
                size,
                arity=self.arity,
                fetch=lambda after, limit: self.query(
                    conn, chain.chain_id, **selected, **self.fixed, after=after, limit=limit
                ),
                position=self.position,
                key=self.key,
                item=self.item,
            )

    def signature(self) -> inspect.Signature:
        """The endpoint's parameters, in the order the OpenAPI document lists them."""
        required = inspect.Parameter.empty
        params: list[tuple[str, Any, Any]] = [
            ("st", State, required),
            ("chain_id", ChainIdPath, required),
        ]
        if self.address is not None:
            params.append(("address", AddressPath, required))
        if self.blocks:
            params += [("startBlock", StartBlock, None), ("endBlock", EndBlock, None)]
        params += [("pageToken", PageToken, None), ("pageSize", PageSize, 10)]
        params += [(e.name, e.annotation, e.default) for e in self.extra]
        kind = inspect.Parameter.KEYWORD_ONLY
        return inspect.Signature(
            [inspect.Parameter(n, kind, annotation=a, default=d) for n, a, d in params],
            return_annotation=JsonResponse,
        )


def mount(router: APIRouter, *routes: ListRoute) -> None:
    """Add each of `routes` to `router` as a GET endpoint, in this order."""
    for route in routes:
        _mount(router, route)


def _mount(router: APIRouter, route: ListRoute) -> None:
    # FastAPI reads the parameters from the signature `route.signature()` declares; the body
    # receives them by name, and what is not common to every list route arrives in `selected`.
    def endpoint(
        st: AppState,
        chain_id: str,
        pageToken: str | None,
        pageSize: int,
        address: str | None = None,
        startBlock: int | None = None,
        endBlock: int | None = None,
        **selected: Any,
    ) -> JsonResponse:
        if route.address is not None and address is not None:
            selected[route.address] = address.lower()
        if route.blocks:
            selected["start"], selected["end"] = startBlock, endBlock
        return route.respond(st, chain_id, pageToken, pageSize, selected)

    endpoint.__name__ = endpoint.__qualname__ = route.name
    endpoint.__signature__ = route.signature()  # type: ignore[attr-defined]
    router.get(
        route.path,
        operation_id=route.operation_id,
        responses={200: {"model": route.model}, **ERROR_RESPONSES},
        response_model=None,
    )(on_store(endpoint))
