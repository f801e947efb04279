"""Paging, all of it: the page parameters, opaque page tokens <-> keyset positions, and the cut
of a fetched page.

Stage: api. Page-size bounds live here, one annotated type per endpoint group, so the OpenAPI
document states exactly the bounds the server enforces.

Queries fetch `size + 1` rows: the extra one only says that more exist, so the token is made
from the last row served and is present only when another page exists (`cut`).

A token is base64url(version | position JSON | params digest | MAC), where the
params digest hashes the route and every query parameter that selects rows (not pageToken, not
pageSize: a client may change the page size between pages without changing the result set),
and the MAC is an HMAC-SHA256 over version, position and digest under the server secret.

So three distinct 400s are possible, each saying what is wrong:
- the token does not decode: "unknown" (not one of ours, or truncated);
- the MAC does not verify: "tampered" (or issued under another secret);
- the MAC verifies but the digest differs: issued for other query parameters.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Protocol, TypeVar

import orjson
from fastapi import Query

from avadata.api.errors import bad_request

_VERSION = 1
_DIGEST_LEN = 8
_MAC_LEN = 16

Position = tuple[int | str, ...]
R = TypeVar("R")

# Bounds per endpoint group (seed, "Limits").
PageSize = Annotated[int, Query(alias="pageSize", ge=1, le=100, description="1 to 100")]
BalancePageSize = Annotated[int, Query(alias="pageSize", ge=1, le=500, description="1 to 500")]
BlockTxPageSize = Annotated[
    int,
    Query(
        alias="pageSize",
        ge=0,
        le=100,
        description="0 to 100; 0 (the default) returns every transaction of the block at once",
    ),
]
PageToken = Annotated[
    str | None, Query(alias="pageToken", description="nextPageToken of the previous page")
]


def params_digest(route: str, params: Mapping[str, object]) -> bytes:
    """A digest of the route and its row-selecting parameters (parsed, normalised values, so
    an omitted default and the same default sent explicitly give the same digest)."""
    canonical = orjson.dumps([route, sorted((k, repr(v)) for k, v in params.items())])
    return hashlib.sha256(canonical).digest()[:_DIGEST_LEN]


class PageCodec:
    """Encodes and decodes page tokens under one server secret."""

    def __init__(self, secret: bytes):
        if len(secret) < 16:
            raise ValueError("the page-token secret must be at least 16 bytes")
        self._secret = secret

    def _mac(self, body: bytes) -> bytes:
        return hmac.new(self._secret, body, hashlib.sha256).digest()[:_MAC_LEN]

    def encode(self, position: Sequence[int | str], digest: bytes) -> str:
        body = bytes([_VERSION]) + orjson.dumps(list(position)) + digest
        raw = body + self._mac(body)
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")

    def moved(self, token: str, position: Sequence[int | str]) -> str:
        """`token` (one of ours, checked) for the same query at another position: how a
        benchmark reaches a deep page without knowing the filters the route hashed."""
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        body = raw[:-_MAC_LEN]
        if not hmac.compare_digest(raw[-_MAC_LEN:], self._mac(body)):
            raise ValueError("not a page token of this secret")
        theirs = orjson.loads(body[1:-_DIGEST_LEN])
        if [type(v) for v in theirs] != [type(v) for v in position]:
            raise ValueError(f"the token's positions look like {theirs!r}, not {position!r}")
        return self.encode(position, body[-_DIGEST_LEN:])

    def decode(self, token: str, digest: bytes, *, arity: int) -> Position:
        """The position inside `token`; raises a 400 ApiError saying why it cannot be used."""
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        except (ValueError, TypeError):
            raise bad_request("pageToken: unknown page token (not base64url)") from None
        if len(raw) < 1 + _DIGEST_LEN + _MAC_LEN + 2 or raw[0] != _VERSION:
            raise bad_request("pageToken: unknown page token (not issued by this server)")
        body, mac = raw[:-_MAC_LEN], raw[-_MAC_LEN:]
        if not hmac.compare_digest(mac, self._mac(body)):
            raise bad_request("pageToken: tampered page token (signature does not verify)")
        if not hmac.compare_digest(body[-_DIGEST_LEN:], digest):
            raise bad_request(
                "pageToken: the page token was issued for other query parameters; "
                "repeat the first request's parameters or drop pageToken"
            )
        try:
            position = orjson.loads(body[1:-_DIGEST_LEN])
        except orjson.JSONDecodeError:
            raise bad_request("pageToken: unknown page token (bad position)") from None
        if (
            not isinstance(position, list)
            or len(position) != arity
            or not all(isinstance(p, int | str) and not isinstance(p, bool) for p in position)
        ):
            raise bad_request("pageToken: unknown page token (position of another route)")
        return tuple(position)


class _Coded(Protocol):
    """What `page` needs of the app's state (deps.AppState): its codec."""

    @property
    def codec(self) -> PageCodec: ...


@dataclass(frozen=True, slots=True)
class Page:
    """One page request: size, the decoded position (None on page 1) and how to make the next."""

    size: int
    after: Position | None
    digest: bytes
    codec: PageCodec

    def token(self, position: Position) -> str:
        return self.codec.encode(position, self.digest)


def page(
    st: _Coded,
    route: str,
    filters: Mapping[str, object],
    token: str | None,
    size: int,
    *,
    arity: int,
) -> Page:
    """Decode `token` against this route and its normalised filters (400 when it does not fit)."""
    digest = params_digest(route, filters)
    after = None if token is None or token == "" else st.codec.decode(token, digest, arity=arity)
    return Page(size=size, after=after, digest=digest, codec=st.codec)


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
