"""What every list route does around its query: decode the page token, fetch one row more
than the page, cut it off, shape the items, make nextPageToken (the paging itself is
api/paging.py's).

Stage: api.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any, TypeVar

from fastapi import Query

from avadata.api.deps import State
from avadata.api.encoding import JsonResponse
from avadata.api.errors import bad_request
from avadata.api.paging import Position, cut, page, with_token

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


def block_range(start: int | None, end: int | None) -> tuple[int | None, int | None]:
    """The seed's rules: start inclusive, end exclusive, either may be open."""
    if start is not None and end is not None and start > end:
        raise bad_request(
            f"startBlock: must not exceed endBlock (startBlock={start}, endBlock={end})"
        )
    return start, end


def keyset_page(
    st: State,
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


def block_range_page(
    st: State,
    kind: str,
    filters: dict[str, Any],
    start: int | None,
    end: int | None,
    page_token: str | None,
    page_size: int,
    *,
    fetch: Callable[[int | None, int | None, Position | None, int], Sequence[R]],
    position: Callable[[R], Position],
    key: str,
    item: Callable[[R], Any],
) -> JsonResponse:
    """`keyset_page` over blocks [startBlock, endBlock): the range is checked and is part of
    the token's filters; positions are (block, index, sub-index)."""
    start, end = block_range(start, end)
    return keyset_page(
        st,
        kind,
        {**filters, "start": start, "end": end},
        page_token,
        page_size,
        arity=3,
        fetch=lambda after, limit: fetch(start, end, after, limit),
        position=position,
        key=key,
        item=item,
    )
