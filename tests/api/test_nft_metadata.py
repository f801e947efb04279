"""The NFT metadata worker: URI schemes, statuses, retries with backoff, no fetch unless
enabled; and what the API then serves for the tokens."""

from __future__ import annotations

import base64
import http.server
import json
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from avadata.api.app import create_app
from avadata.indexer.nft import calls
from avadata.indexer.nft.resolve import TooLarge, erc1155_uri, gateway_url, resolve
from avadata.indexer.nft.worker import MAX_ATTEMPTS, backoff_s, run_once
from avadata.settings import Settings
from avadata.store import nft_status as status
from avadata.store.engine import make_engine
from avadata.store.schema import nft_tokens
from tests.api.http import TestClient
from tests.api.synthetic import CHAIN_ID, ERC721, ERC1155

DOC = {"name": "Thing", "description": "d", "image": "ipfs://img", "attributes": [{"a": 1}]}


def _r(uri, fetch=None, max_bytes=10_000):
    return resolve(uri, fetch=fetch, gateway="https://gw.example/ipfs/", max_bytes=max_bytes)


def test_data_uris() -> None:
    b64 = "data:application/json;base64," + base64.b64encode(json.dumps(DOC).encode()).decode()
    assert _r(b64).status == status.INDEXED and _r(b64).document == DOC
    plain = "data:application/json," + "%7B%22name%22%3A%22x%22%7D"
    assert _r(plain).document == {"name": "x"}
    not_json = base64.b64encode(b"not json").decode()
    assert _r("data:application/json;base64," + not_json).status == status.BAD_JSON
    assert _r("data:application/json;base64,!!!x").status == status.BAD_URI
    assert _r("data:application/json,[1,2]").status == status.BAD_METADATA
    assert _r("data:nocomma").status == status.BAD_URI


def test_schemes_and_empty() -> None:
    assert _r("").status == status.BAD_URI
    assert _r(None).status == status.BAD_URI
    assert _r("ftp://x/1.json").status == status.BAD_SCHEME
    assert _r("just-text").status == status.BAD_SCHEME
    # No fetch function: nothing leaves the machine; http(s)/ipfs stay pending.
    assert _r("https://example.com/1.json").status == status.PENDING
    assert _r("ipfs://bafy/1").status == status.PENDING


def test_ipfs_gateway_and_erc1155_id() -> None:
    assert gateway_url("ipfs://bafy/1.json", "https://gw/ipfs/") == "https://gw/ipfs/bafy/1.json"
    assert gateway_url("ipfs://ipfs/bafy/2", "https://gw/ipfs") == "https://gw/ipfs/bafy/2"
    seen: list[str] = []

    def fetch(url: str) -> tuple[int, bytes]:
        seen.append(url)
        return 200, json.dumps(DOC).encode()

    assert _r("ipfs://bafy/7", fetch).status == status.INDEXED
    assert seen == ["https://gw.example/ipfs/bafy/7"]
    assert erc1155_uri("https://x/{id}.json", 255) == "https://x/" + "0" * 62 + "ff.json"


def test_fetch_failures_are_statuses() -> None:
    def answer(code: int, body: bytes = b"{}"):
        return lambda url: (code, body)

    def unreachable(url: str) -> tuple[int, bytes]:
        raise OSError("connection refused")

    def too_large(url: str) -> tuple[int, bytes]:
        raise TooLarge(url)

    url = "https://example.com/1.json"
    assert _r(url, answer(429)).status == status.THROTTLED
    assert _r(url, answer(503)).status == status.UNREACHABLE
    assert _r(url, answer(404)).status == status.UNREACHABLE
    assert _r(url, unreachable).status == status.UNREACHABLE
    assert _r(url, too_large).status == status.TOO_LARGE
    assert _r(url, answer(200, b"x" * 20_000)).status == status.TOO_LARGE
    assert _r(url, answer(200, b"<html>")).status == status.BAD_JSON


def test_backoff_grows_and_caps() -> None:
    waits = [backoff_s(n) for n in range(1, 10)]
    assert waits[:3] == [30, 60, 120] and waits[-1] == 3600
    assert waits == sorted(waits)


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if self.path.startswith("/ok/"):
            body = json.dumps({**DOC, "name": f"Thing {self.path[4:]}"}).encode()
            self.send_response(200)
        elif self.path.startswith("/redirect/"):
            self.send_response(302)
            self.send_header("Location", "/ok/" + self.path[len("/redirect/") :])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        elif self.path.startswith("/slow-down/"):
            body = b"{}"
            self.send_response(429)
        else:
            body = b"nope"
            self.send_response(404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def meta_server() -> Iterator[str]:
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


def test_fetch_follows_redirects_paced_and_refuses_private_hosts(meta_server: str) -> None:
    import time

    import httpx

    with httpx.Client(timeout=5) as client:
        fetch = calls.make_fetch(client, 10_000, per_s=20)
        started = time.monotonic()
        for _ in range(3):
            code, body = fetch(f"{meta_server}/redirect/7")
            assert code == 200 and json.loads(body)["name"] == "Thing 7"
        assert time.monotonic() - started >= 0.1  # three fetches at 20/s: two 50 ms gaps
        guarded = calls.make_fetch(client, 10_000, allow_private=False)
        for url in (f"{meta_server}/ok/1", "http://169.254.169.254/latest/meta-data"):
            with pytest.raises(OSError, match="not a public address"):
                guarded(url)


@pytest.fixture
def private_store(store, tmp_path: Path) -> str:
    db = tmp_path / "nft.db"
    src = sqlite3.connect(store[0].removeprefix("sqlite:///"))
    dst = sqlite3.connect(db)
    src.backup(dst)
    src.close()
    dst.close()
    url = f"sqlite:///{db}"
    with make_engine(url).begin() as conn:  # the worker needs the chain's node URL
        conn.exec_driver_sql("UPDATE chains SET rpc_url = 'http://node.invalid'")
    return url


def _statuses(url: str) -> dict[tuple[str, int], tuple[str, str | None, int]]:
    nf = nft_tokens.c
    with make_engine(url).connect() as conn:
        rows = conn.execute(
            select(nf.token, nf.token_id, nf.index_status, nf.token_uri, nf.attempts)
        ).all()
    return {(r.token, int(r.token_id)): (r.index_status, r.token_uri, r.attempts) for r in rows}


def test_worker_end_to_end(private_store: str, meta_server: str) -> None:
    url = private_store
    doc = base64.b64encode(json.dumps(DOC).encode()).decode()

    def token_uri(rpc_url: str, token: str, standard: str, token_id: int) -> str:
        assert rpc_url == "http://node.invalid"
        if standard == "ERC-1155":
            return f"{meta_server}/ok/{{id}}"
        if token_id == 31:
            return f"{meta_server}/ok/{token_id}"
        if token_id == 32:
            return f"{meta_server}/slow-down/{token_id}"
        if token_id == 60:
            raise calls.Reverted("execution reverted: ERC721: invalid token ID")
        if token_id == 61:
            return "gopher://old"
        return "data:application/json;base64," + doc

    engine = make_engine(url)
    settings = Settings(db_url=url)
    # Fetching disabled: data: URIs resolve, http ones keep their URI and stay pending.
    while run_once(engine, settings, token_uri=token_uri, fetch=None, now=1000):
        pass
    st = _statuses(url)
    assert st[(ERC721, 30)][0] == status.INDEXED
    assert st[(ERC721, 31)][0] == status.PENDING and st[(ERC721, 31)][1].endswith("/ok/31")
    assert st[(ERC721, 60)][0] == status.MISSING_TOKEN
    assert st[(ERC721, 61)][0] == status.BAD_SCHEME
    # Enabled: http resolves; 429 is retried later with backoff, up to MAX_ATTEMPTS.
    import httpx

    with httpx.Client(timeout=5) as client:
        fetch = calls.make_fetch(client, 100_000)
        now = 1000 + 3600
        for _ in range(MAX_ATTEMPTS + 2):
            while run_once(engine, settings, token_uri=token_uri, fetch=fetch, now=now):
                pass
            now += 3600
    st = _statuses(url)
    assert st[(ERC721, 31)][0] == status.INDEXED
    assert st[(ERC721, 32)][0] == status.THROTTLED and st[(ERC721, 32)][2] == MAX_ATTEMPTS
    assert st[(ERC1155, 2**200)][0] == status.INDEXED

    app = create_app(Settings(db_url=url, page_token_secret="nft-secret-0123456"))
    with TestClient(app) as c:
        tokens = c.get(
            f"/v1/chains/{CHAIN_ID}/nfts/collections/{ERC721}/tokens", params={"pageSize": 100}
        ).json()["tokens"]
        semi = c.get(f"/v1/chains/{CHAIN_ID}/nfts/collections/{ERC1155}/tokens").json()
    by_id = {int(t["tokenId"]): t for t in tokens}
    meta = by_id[30]["metadata"]
    assert meta["indexStatus"] == "INDEXED" and meta["name"] == "Thing"
    assert meta["imageUri"] == "ipfs://img" and json.loads(meta["attributes"]) == [{"a": 1}]
    assert meta["metadataLastUpdatedTimestamp"] == 1000
    assert by_id[31]["metadata"]["name"] == "Thing 31"
    assert by_id[32]["metadata"] == {
        "indexStatus": "THROTTLED_TOKEN_URI",
        "metadataLastUpdatedTimestamp": by_id[32]["metadata"]["metadataLastUpdatedTimestamp"],
    }
    assert by_id[60]["metadata"]["indexStatus"] == "MISSING_TOKEN"
    assert by_id[61]["metadata"]["indexStatus"] == "INVALID_TOKEN_URI_SCHEME"
    assert by_id[61]["tokenUri"] == "gopher://old"
    first = semi["tokens"][0]
    assert first["tokenUri"] == f"{meta_server}/ok/{{id}}"
    assert first["metadata"]["indexStatus"] == "INDEXED"
