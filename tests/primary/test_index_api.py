"""Index API source against a stub node following avalanchego's service rules
(node-rpc.md section 2), and block timestamps from block bytes built with the codec."""

from __future__ import annotations

import asyncio
import atexit
import hashlib
from contextlib import ExitStack
from typing import Any

import orjson
import pytest

from avadata.decode.codec import api
from avadata.decode.codec.pchain_blocks import BanffStandardBlock
from avadata.decode.primary.blocks import block_facts
from avadata.errors import RpcTransportError
from avadata.sources.index_api import MAX_FETCH, IndexApiSource, decode_hex_bytes
from avadata.sources.jsonrpc import JsonRpcClient, RetryPolicy
from tests.support.server import serving


def _hex(raw: bytes) -> str:
    return "0x" + (raw + hashlib.sha256(raw).digest()[-4:]).hex()


def _blocks(n: int) -> list[bytes]:
    return [
        api.encode_p_block(
            BanffStandardBlock(
                time=1_700_000_000 + i, parent_id=bytes(32), height=i, transactions=()
            )
        )
        for i in range(n)
    ]


def _stub(blocks: list[bytes], calls: list[dict[str, Any]]) -> Any:
    """An ASGI app answering the Index API's calls over `blocks`, recording each call."""

    def answer(req: dict[str, Any]) -> dict[str, Any]:
        calls.append(req)
        p, rid = req["params"], req["id"]

        def err(msg: str) -> dict[str, Any]:
            return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32000, "message": msg}}

        def cont(i: int) -> dict[str, Any]:
            return {
                "id": f"id{i}",
                "bytes": _hex(blocks[i]),
                "timestamp": "2026-11-22T00:00:00Z",
                "encoding": "hex",
                "index": str(i),
            }

        if req["method"] == "index.getLastAccepted":
            if not blocks:
                return err("no containers have been accepted")
            return {"jsonrpc": "2.0", "id": rid, "result": cont(len(blocks) - 1)}
        n, s = p["numToFetch"], p["startIndex"]
        if not 1 <= n <= MAX_FETCH:
            return err(f"numToFetch must be in [1,1024] but is {n}")
        if s > len(blocks) - 1:
            return err(f"start index ({s}) > last accepted index ({len(blocks) - 1})")
        items = [cont(i) for i in range(s, min(s + n, len(blocks)))]
        return {"jsonrpc": "2.0", "id": rid, "result": {"containers": items}}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        chunks = []
        while True:
            msg = await receive()
            chunks.append(msg.get("body", b""))
            if not msg.get("more_body"):
                break
        body = orjson.loads(b"".join(chunks))
        out = orjson.dumps([answer(r) for r in body] if isinstance(body, list) else answer(body))
        headers = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": out})

    return app


# Each stub node is served until the test process ends: callers index from it in loops of
# their own (asyncio.run), as the indexer does.
_servers = ExitStack()
atexit.register(_servers.close)


def _source(blocks: list[bytes], calls: list[dict[str, Any]]) -> IndexApiSource:
    base = _servers.enter_context(serving(_stub(blocks, calls)))
    client = JsonRpcClient(f"{base}/ext/index/P/block", retry=RetryPolicy(max_attempts=1))
    return IndexApiSource(client)


async def _closing(src: IndexApiSource, work: Any) -> Any:
    try:
        return await work
    finally:
        await src.client.aclose()


def test_range_batches_of_1024_and_short_end() -> None:
    blocks = _blocks(2100)
    calls: list[dict[str, Any]] = []
    src = _source(blocks, calls)
    asyncio.run(_closing(src, _range_batches(src, blocks, calls)))


async def _range_batches(
    src: IndexApiSource, blocks: list[bytes], calls: list[dict[str, Any]]
) -> None:
    assert await src.last_accepted_index() == 2099
    got = await src.range(0, 3000)
    assert [c.index for c in got] == list(range(2100))
    assert all(c["params"]["numToFetch"] <= MAX_FETCH for c in calls[1:])
    assert got[5].raw == blocks[5]
    facts = block_facts("P", got[5].raw)
    assert facts.timestamp == 1_700_000_005 and facts.height == 5


def test_empty_index() -> None:
    src = _source([], [])
    assert asyncio.run(_closing(src, src.last_accepted_index())) is None


def test_checksum_checked() -> None:
    raw = b"abcdef"
    assert decode_hex_bytes(_hex(raw)) == raw
    with pytest.raises(RpcTransportError):
        decode_hex_bytes(_hex(raw)[:-2] + "00")
