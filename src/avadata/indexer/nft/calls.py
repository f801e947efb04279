"""The two outside calls of the NFT worker: eth_call tokenURI/uri on the chain's node, and an
HTTP GET of the metadata with a size cap, a pace and (for a public server) no fetch from its
own network.

Stage: indexer (the NFT worker). Transport failures surface as OSError, a reverted call as
`Reverted`, so the worker can tell "try again later" from "this token has no URI".
"""

from __future__ import annotations

import ipaddress
import socket
import time

import httpx
from eth_abi.abi import decode, encode
from eth_abi.exceptions import DecodingError

from avadata.indexer.nft.resolve import Fetch, TooLarge

_TOKEN_URI = "0xc87b56dd"  # tokenURI(uint256), ERC-721 metadata
_URI = "0x0e89341c"  # uri(uint256), ERC-1155 metadata URI


class Reverted(Exception):
    """The node answered the eth_call with an error: no URI for this token."""


def token_uri(client: httpx.Client, rpc_url: str, token: str, standard: str, token_id: int) -> str:
    selector = _URI if standard == "ERC-1155" else _TOKEN_URI
    data = selector + encode(["uint256"], [token_id]).hex()
    payload = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "eth_call",
        "params": [{"to": token, "data": data}, "latest"],
    }
    try:
        body = client.post(rpc_url, json=payload).json()
    except (httpx.HTTPError, ValueError) as exc:
        raise OSError(f"eth_call to {rpc_url}: {exc}") from exc
    if "error" in body:
        raise Reverted(str(body["error"]))
    try:
        raw = bytes.fromhex(str(body["result"])[2:])
        (uri,) = decode(["string"], raw)
    except (KeyError, ValueError, DecodingError) as exc:
        raise Reverted(f"undecodable result: {exc}") from exc
    return str(uri)


_MAX_REDIRECTS = 5


class _Pace:
    """At most `per_s` calls a second (the worker's one thread calls it; sleeping is its wait)."""

    def __init__(self, per_s: float | None) -> None:
        self._gap = 0.0 if not per_s else 1.0 / per_s
        self._next = 0.0

    def wait(self) -> None:
        now = time.monotonic()
        if now < self._next:
            time.sleep(self._next - now)
        self._next = max(now, self._next) + self._gap


def _is_public(url: httpx.URL) -> bool:
    """True when every address the URL's host resolves to is a global one: a token's URI is
    anyone's to choose, and must not make the server fetch from its own network."""
    try:
        infos = socket.getaddrinfo(url.host, url.port or 443, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return True  # unresolvable: the request itself fails as unreachable
    return all(ipaddress.ip_address(str(i[4][0]).split("%")[0]).is_global for i in infos)


def make_fetch(
    client: httpx.Client,
    max_bytes: int,
    *,
    allow_private: bool = True,
    per_s: float | None = None,
) -> Fetch:
    """A `Fetch` that GETs a URL, stopping once the body passes `max_bytes`; at most `per_s`
    fetches a second; with `allow_private` False, a host (or redirect) resolving to a loopback,
    private or link-local address is refused (as unreachable)."""
    pace = _Pace(per_s)

    def get(url: httpx.URL) -> tuple[int, bytes] | httpx.URL:
        with client.stream("GET", url, follow_redirects=False) as resp:
            if resp.is_redirect and resp.next_request is not None:
                return resp.next_request.url
            chunks: list[bytes] = []
            size = 0
            for chunk in resp.iter_bytes():
                size += len(chunk)
                if size > max_bytes:
                    raise TooLarge(str(url))
                chunks.append(chunk)
            return resp.status_code, b"".join(chunks)

    def fetch(url: str) -> tuple[int, bytes]:
        pace.wait()
        at = httpx.URL(url)
        try:
            for _ in range(_MAX_REDIRECTS + 1):
                if not allow_private and not _is_public(at):
                    raise OSError(f"GET {url}: {at.host} is not a public address")
                got = get(at)
                if not isinstance(got, httpx.URL):
                    return got
                at = got
        except httpx.HTTPError as exc:
            raise OSError(f"GET {url}: {exc}") from exc
        raise OSError(f"GET {url}: more than {_MAX_REDIRECTS} redirects")

    return fetch
