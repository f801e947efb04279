"""`avadata serve` as a user runs it: a subprocess on a free loopback port, JSON on /v1/chains."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import httpx

from tests.api.synthetic import CHAIN_ID


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_subprocess(store) -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "avadata", "serve", "--db", store[0], "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "AVADATA_PAGE_TOKEN_SECRET": ""},
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                resp = httpx.get(f"http://127.0.0.1:{port}/v1/chains", timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
                assert time.monotonic() < deadline, "server did not come up"
                time.sleep(0.1)
        assert resp.status_code == 200
        assert resp.headers["content-type"] == "application/json"
        assert resp.json()["chains"][0]["chainId"] == str(CHAIN_ID)
        # Tokens are signed with the store's shared secret: a second server accepts them.
        first = httpx.get(f"http://127.0.0.1:{port}/v1/chains/{CHAIN_ID}/blocks?pageSize=2")
        token = first.json()["nextPageToken"]
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=15)
    from avadata.api.app import create_app
    from avadata.settings import Settings
    from tests.api.http import TestClient

    with TestClient(create_app(Settings(db_url=store[0]))) as c:
        resp = c.get(f"/v1/chains/{CHAIN_ID}/blocks", params={"pageSize": 2, "pageToken": token})
        assert resp.status_code == 200, resp.text
