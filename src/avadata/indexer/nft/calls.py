"""The two outside calls of the NFT worker: eth_call tokenURI/uri on the chain's node, and an
HTTP GET of the metadata with a size cap.

Stage: indexer (the NFT worker). Transport failures surface as OSError, a reverted call as
`Reverted`, so the worker can tell "try again later" from "this token has no URI".
"""

from __future__ import annotations

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


def make_fetch(client: httpx.Client, max_bytes: int) -> Fetch:
    """A `Fetch` that GETs a URL, stopping once the body passes `max_bytes`."""

    def fetch(url: str) -> tuple[int, bytes]:
        try:
            with client.stream("GET", url, follow_redirects=True) as resp:
                chunks: list[bytes] = []
                size = 0
                for chunk in resp.iter_bytes():
                    size += len(chunk)
                    if size > max_bytes:
                        raise TooLarge(url)
                    chunks.append(chunk)
                return resp.status_code, b"".join(chunks)
        except httpx.HTTPError as exc:
            raise OSError(f"GET {url}: {exc}") from exc

    return fetch
