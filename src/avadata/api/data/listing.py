"""What every list route does after its query: cut the extra row off, make nextPageToken.

Stage: api. Queries fetch `size + 1` rows: the extra one only says that more exist, so the
token is made from the last row served and is present only when another page exists.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from avadata.api.deps import Page
from avadata.api.errors import bad_request
from avadata.api.paging import Position

R = TypeVar("R")


def cut(
    rows: Sequence[R], page: Page, position: Callable[[R], Position]
) -> tuple[Sequence[R], str | None]:
    """The rows of this page and the next page's token (None on the last page)."""
    if len(rows) <= page.size:
        return rows, None
    served = rows[: page.size]
    return served, page.token(position(served[-1]))


def with_token(body: dict[str, Any], token: str | None) -> dict[str, Any]:
    """Add nextPageToken only when there is one (absent, never null, on the last page)."""
    if token is not None:
        body["nextPageToken"] = token
    return body


def block_range(start: int | None, end: int | None) -> tuple[int | None, int | None]:
    """The seed's rules: start inclusive, end exclusive, either may be open."""
    if start is not None and end is not None and start > end:
        raise bad_request(
            f"startBlock: must not exceed endBlock (startBlock={start}, endBlock={end})"
        )
    return start, end
