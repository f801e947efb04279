"""Index API source against a stub node following avalanchego's service rules
(node-rpc.md section 2), and block timestamps from block bytes built with the codec."""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

import httpx
import orjson
import pytest

from avadata.decode.codec import api
from avadata.decode.codec.pchain_blocks import BanffStandardBlock
from avadata.decode.primary_blocks import block_facts
from avadata.errors import RpcTransportError
from avadata.sources.index_api import MAX_FETCH, IndexApiSource, decode_hex_bytes
from avadata.sources.jsonrpc import JsonRpcClient, RetryPolicy


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


def _stub(blocks: list[bytes], calls: list[dict[str, Any]]) -> httpx.MockTransport:
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

    def handler(request: httpx.Request) -> httpx.Response:
        body = orjson.loads(request.content)
        out = [answer(r) for r in body] if isinstance(body, list) else answer(body)
        return httpx.Response(200, content=orjson.dumps(out))

    return httpx.MockTransport(handler)


def _source(blocks: list[bytes], calls: list[dict[str, Any]]) -> IndexApiSource:
    client = JsonRpcClient(
        "http://127.0.0.1:1/ext/index/P/block",
        client=httpx.AsyncClient(transport=_stub(blocks, calls)),
        retry=RetryPolicy(max_attempts=1),
    )
    return IndexApiSource(client)


def test_range_batches_of_1024_and_short_end() -> None:
    asyncio.run(_range_batches())


async def _range_batches() -> None:
    blocks = _blocks(2100)
    calls: list[dict[str, Any]] = []
    src = _source(blocks, calls)
    assert await src.last_accepted_index() == 2099
    got = await src.range(0, 3000)
    assert [c.index for c in got] == list(range(2100))
    assert all(c["params"]["numToFetch"] <= MAX_FETCH for c in calls[1:])
    assert got[5].raw == blocks[5]
    facts = block_facts("P", got[5].raw)
    assert facts.timestamp == 1_700_000_005 and facts.height == 5


def test_empty_index() -> None:
    assert asyncio.run(_source([], []).last_accepted_index()) is None


def test_checksum_checked() -> None:
    raw = b"abcdef"
    assert decode_hex_bytes(_hex(raw)) == raw
    with pytest.raises(RpcTransportError):
        decode_hex_bytes(_hex(raw)[:-2] + "00")
