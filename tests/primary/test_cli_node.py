"""`avadata index --node URL --once` against a stub node on 127.0.0.1 serving the Index API
(P: codec-built blocks; X and C: empty indexes, as a node that indexed nothing there)."""

from __future__ import annotations

import hashlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import uvicorn
from sqlalchemy import func, select
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from typer.testing import CliRunner

from avadata.cli.main import app
from avadata.store.engine import make_engine
from avadata.store.schema import primary_txs
from tests.primary.test_ingest import _chain

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
