"""`avadata index --node URL --once` against a stub node on 127.0.0.1 serving the Index API
(P: codec-built blocks; X and C: empty indexes, as a node that indexed nothing there)."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import uvicorn
from sqlalchemy import Engine, func, select
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from typer.testing import CliRunner

from avadata.cli.main import app
from avadata.errors import RpcRefused, SourceError
from avadata.indexer.primary.run import index_node
from avadata.sources.jsonrpc import JsonRpcClient, RetryPolicy
from avadata.store.engine import make_engine
from avadata.store.migrate import migrate
from avadata.store.schema import primary_txs
from tests.primary.test_ingest import _chain
from tests.support.fault_proxy import FaultProxy

BLOCKS, IDS = _chain(12)


def _answer(chain: str, req: dict[str, Any]) -> dict[str, Any]:
    blocks = BLOCKS if chain == "P" else []
    rid, p = req["id"], req["params"]

    def cont(i: int) -> dict[str, Any]:
        raw = blocks[i]
        return {
            "id": f"c{i}",
            "bytes": "0x" + (raw + hashlib.sha256(raw).digest()[-4:]).hex(),
            "timestamp": "2026-11-22T00:00:00.123456789Z",
            "encoding": "hex",
            "index": str(i),
        }

    if not blocks:
        return {
            "jsonrpc": "2.0",
            "id": rid,
            "error": {"code": -32000, "message": "no containers have been accepted"},
        }
    if req["method"] == "index.getLastAccepted":
        return {"jsonrpc": "2.0", "id": rid, "result": cont(len(blocks) - 1)}
    s, n = p["startIndex"], p["numToFetch"]
    items = [cont(i) for i in range(s, min(s + n, len(blocks)))]
    return {"jsonrpc": "2.0", "id": rid, "result": {"containers": items}}


async def _index(request: Request) -> Response:
    chain = request.path_params["chain"]
    body = orjson.loads(await request.body())
    out = [_answer(chain, r) for r in body] if isinstance(body, list) else _answer(chain, body)
    return Response(orjson.dumps(out), media_type="application/json")


@pytest.fixture(scope="module")
def node() -> Iterator[str]:
    stub = Starlette(routes=[Route("/ext/index/{chain}/block", _index, methods=["POST"])])
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    srv = uvicorn.Server(uvicorn.Config(stub, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


def test_index_node_once(node: str, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'n.db'}"
    for _ in range(2):  # the second run resumes at the end and adds nothing
        result = CliRunner().invoke(app, ["index", "--node", node, "--db", db, "--once"])
        assert result.exit_code == 0, result.output
    with make_engine(db).connect() as conn:
        hashes = conn.execute(select(primary_txs.c.tx_hash).order_by(primary_txs.c.block_number))
        assert list(hashes.scalars()) == IDS
        assert conn.execute(select(func.count()).select_from(primary_txs)).scalar() == 12


def _stored(engine: Engine) -> list[str]:
    with engine.connect() as conn:
        rows = conn.execute(select(primary_txs.c.tx_hash).order_by(primary_txs.c.block_number))
        return list(rows.scalars())


def test_a_following_indexer_outlives_a_node_outage(
    node: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The node unreachable when the follower starts (503s past a request's retries): it logs,
    keeps trying, and indexes every block once the node is back."""
    engine = make_engine(f"sqlite:///{tmp_path / 'o.db'}")
    migrate(engine)
    retry = RetryPolicy(max_attempts=2, initial_delay=0.05, max_delay=0.1)

    async def scenario(proxy: FaultProxy) -> None:
        stop = asyncio.Event()
        task = asyncio.create_task(
            index_node(engine, proxy.url, once=False, poll=0.1, retry=retry, stop_event=stop)
        )
        await asyncio.sleep(1.0)  # several passes of two attempts each
        assert not task.done()
        assert _stored(engine) == []
        proxy.down = False
        for _ in range(100):
            if len(_stored(engine)) == len(IDS):
                break
            await asyncio.sleep(0.1)
        stop.set()
        await task

    with (
        caplog.at_level(logging.WARNING, logger="avadata.indexer.primary.run"),
        FaultProxy(node, rate=0.0) as proxy,
    ):
        proxy.down = True
        asyncio.run(scenario(proxy))
    messages = [r.getMessage() for r in caplog.records if "trying again" in r.getMessage()]
    assert any("503" in m for m in messages), messages
    assert _stored(engine) == IDS
    engine.dispose()


def test_a_backfill_stops_at_a_node_outage(node: str, tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'b.db'}")
    migrate(engine)
    retry = RetryPolicy(max_attempts=2, initial_delay=0.05, max_delay=0.1)
    with FaultProxy(node, rate=0.0) as proxy:
        proxy.down = True
        with pytest.raises(SourceError, match="503"):
            asyncio.run(index_node(engine, proxy.url, once=True, retry=retry))
    engine.dispose()


def test_a_path_the_node_does_not_serve_fails_at_once(node: str) -> None:
    """A 404 is the server's answer, not a transient fault: no retries, the status named."""

    async def ask() -> JsonRpcClient:
        client = JsonRpcClient(f"{node}/ext/bc/nothing")
        try:
            with pytest.raises(RpcRefused, match="HTTP 404"):
                await client.call("platform.getHeight")
        finally:
            await client.aclose()
        return client

    assert asyncio.run(ask()).retries == 0
