"""avalanchego Index API (/ext/index/{P,X,C}/block): fetch containers, nothing decoded.

Sources stage: containers come back as (index, id, raw bytes, node acceptance time). The
acceptance time is kept only as a fallback: during bootstrap it is the bootstrap time, so the
indexer takes block timestamps from the block bytes (`decode.primary.blocks`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from avadata.errors import RpcError, RpcTransportError
from avadata.sources.jsonrpc import JsonRpcClient

# avalanchego's MaxFetchedByRange; the node refuses numToFetch outside [1, 1024].
MAX_FETCH = 1024
EMPTY_INDEX = "no containers have been accepted"


@dataclass(frozen=True, slots=True)
class IndexedContainer:
    index: int
    id: str
    raw: bytes
    accepted_at: str  # RFC 3339 as the node prints it; fallback only


def index_url(node: str, chain: str, kind: str = "block") -> str:
    """`http://host:9650` + `P` -> `http://host:9650/ext/index/P/block`."""
    return f"{node.rstrip('/')}/ext/index/{chain.upper()}/{kind}"


def decode_hex_bytes(text: str) -> bytes:
    """`hex` encoding carries a 4-byte sha256 checksum; `hexnc` does not. We ask for `hex` and
    check the checksum so a truncated or altered answer is a transport error, not a bad row."""
    data = bytes.fromhex(text[2:] if text.startswith(("0x", "0X")) else text)
    if len(data) < 4:
        raise RpcTransportError("container bytes shorter than their checksum")
    body, check = data[:-4], data[-4:]
    if hashlib.sha256(body).digest()[-4:] != check:
        raise RpcTransportError("container bytes fail their checksum")
    return body


def _container(obj: Any) -> IndexedContainer:
    if not isinstance(obj, dict):
        raise RpcTransportError("container is not an object")
    return IndexedContainer(
        index=int(obj["index"]),
        id=str(obj["id"]),
        raw=decode_hex_bytes(str(obj["bytes"])),
        accepted_at=str(obj.get("timestamp", "")),
    )


class IndexApiSource:
    """One chain's block index on one node."""

    def __init__(self, client: JsonRpcClient) -> None:
        self.client = client

    async def last_accepted_index(self) -> int | None:
        """Index of the newest container, or None when the index is empty."""
        try:
            result = await self.client.call("index.getLastAccepted", {"encoding": "hex"})
        except RpcError as exc:
            if EMPTY_INDEX in exc.message:
                return None
            raise
        return _container(result).index

    async def index_of(self, container_id: str) -> int:
        result = await self.client.call("index.getIndex", {"id": container_id})
        return int(result["index"])

    async def range(self, start: int, count: int) -> list[IndexedContainer]:
        """Containers start .. start+count-1 (fewer when the index ends), in batches of at
        most 1,024 sent together as one JSON-RPC batch."""
        calls: list[tuple[str, dict[str, Any]]] = []
        at = start
        while at < start + count:
            n = min(MAX_FETCH, start + count - at)
            calls.append(
                ("index.getContainerRange", {"startIndex": at, "numToFetch": n, "encoding": "hex"})
            )
            at += n
        out: list[IndexedContainer] = []
        for answer in await self.client.batch(calls):
            if (
                answer.error is not None
                and out
                and "> last accepted" in str(answer.error.get("message", ""))
            ):
                break  # the index ended inside this batch: a short list, as the node does
            result = answer.unwrap()
            items = result["containers"] if isinstance(result, dict) else result
            out.extend(_container(c) for c in items)
        expected = start
        for c in out:
            if c.index != expected:
                raise RpcTransportError(f"index API gave container {c.index}, expected {expected}")
            expected += 1
        return out
