"""Token URI -> metadata document: data: URIs, http(s), and ipfs:// through a gateway.

Stage: indexer (the NFT worker). A broken URI, an unreachable host or bad JSON is a status, never
an exception. No network access happens unless the caller passes a `fetch` function (the
worker does only when AVADATA_NFT_FETCH_ENABLED is set); without one, http(s) and ipfs URIs stay
pending.
"""

from __future__ import annotations

import base64
import binascii
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from avadata.store import nft_status

# (url) -> (http status, body); raises OSError (any transport failure) when unreachable.
Fetch = Callable[[str], tuple[int, bytes]]


class TooLarge(Exception):
    """The body exceeded the size limit (raised by a fetch function)."""


@dataclass(frozen=True, slots=True)
class Resolved:
    status: str
    document: dict[str, Any] | None = None


def erc1155_uri(template: str, token_id: int) -> str:
    """ERC-1155's {id} substitution: 64 lower-case hex digits, no 0x."""
    return template.replace("{id}", f"{token_id:064x}")


def gateway_url(uri: str, gateway: str) -> str | None:
    """ipfs://<cid>/<path> (or ipfs://ipfs/<cid>/...) -> <gateway><cid>/<path>; None if empty."""
    rest = uri[len("ipfs://") :]
    if rest.startswith("ipfs/"):
        rest = rest[len("ipfs/") :]
    if not rest:
        return None
    return gateway.rstrip("/") + "/" + rest


def _data_uri(uri: str) -> bytes | None:
    header, sep, payload = uri[len("data:") :].partition(",")
    if not sep:
        return None
    if header.endswith(";base64"):
        try:
            return base64.b64decode(payload, validate=False)
        except (binascii.Error, ValueError):
            return None
    return urllib.parse.unquote_to_bytes(payload)


def parse_document(body: bytes, max_bytes: int) -> Resolved:
    if len(body) > max_bytes:
        return Resolved(nft_status.TOO_LARGE)
    try:
        doc = orjson.loads(body)
    except orjson.JSONDecodeError:
        return Resolved(nft_status.BAD_JSON)
    if not isinstance(doc, dict):
        return Resolved(nft_status.BAD_METADATA)
    return Resolved(nft_status.INDEXED, doc)


def resolve(uri: str | None, *, fetch: Fetch | None, gateway: str, max_bytes: int) -> Resolved:
    """The metadata behind `uri`, or the status that says why there is none."""
    if uri is None or not uri.strip():
        return Resolved(nft_status.BAD_URI)
    uri = uri.strip()
    scheme = uri.split(":", 1)[0].lower() if ":" in uri else ""
    if scheme == "data":
        body = _data_uri(uri)
        return Resolved(nft_status.BAD_URI) if body is None else parse_document(body, max_bytes)
    if scheme == "ipfs":
        url = gateway_url(uri, gateway)
        if url is None:
            return Resolved(nft_status.BAD_URI)
    elif scheme in ("http", "https"):
        url = uri
    else:
        return Resolved(nft_status.BAD_SCHEME)
    if fetch is None:
        return Resolved(nft_status.PENDING)
    try:
        code, body = fetch(url)
    except TooLarge:
        return Resolved(nft_status.TOO_LARGE)
    except OSError:
        return Resolved(nft_status.UNREACHABLE)
    if code == 429:
        return Resolved(nft_status.THROTTLED)
    if code >= 400:
        return Resolved(nft_status.UNREACHABLE)
    return parse_document(body, max_bytes)
