"""`avadata up`: one command runs the devnet, the indexer and the API, and stops them all."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import httpx
import psutil
import pytest

from avadata.decode.codec.containers import decode_container
from avadata.decode.codec.ids import cb58_encode
from avadata.decode.codec.pchain_blocks import PCHAIN_TABLE, block_txs

pytestmark = pytest.mark.e2e


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_up_serves_indexed_chains_and_stops_cleanly(tmp_path) -> None:
    api, node = free_port(), free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "avadata",
            "up",
            "--data-dir",
            str(tmp_path),
            "--port",
            str(api),
            "--node-port",
            str(node),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "COLUMNS": "120"},
    )
    try:
        deadline = time.monotonic() + 300
        indexed: dict[str, int] = {}
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                chains = httpx.get(f"http://127.0.0.1:{api}/v1/chains", timeout=5).json()["chains"]
                for c in chains:
                    blocks = httpx.get(
                        f"http://127.0.0.1:{api}/v1/chains/{c['chainId']}/blocks", timeout=5
                    ).json()["blocks"]
                    indexed[c["chainId"]] = int(blocks[0]["blockNumber"]) if blocks else -1
                if len(indexed) == 3 and min(indexed.values()) >= 300:
                    break
            except (httpx.HTTPError, KeyError, ValueError):
                pass
            time.sleep(1)
        assert proc.poll() is None, proc.stdout.read().decode()[-3000:] if proc.stdout else ""
        assert sorted(indexed) == ["43113", "99901", "99902"], indexed
        assert min(indexed.values()) >= 300, indexed
        # The API's newest blocks are the node's blocks.
        ours = httpx.get(f"http://127.0.0.1:{api}/v1/chains/43113/blocks?pageSize=20").json()[
            "blocks"
        ]
        for block in ours:
            theirs = httpx.post(
                f"http://127.0.0.1:{node}/ext/bc/C/rpc",
                json={
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "eth_getBlockByNumber",
                    "params": [hex(int(block["blockNumber"])), False],
                },
            ).json()["result"]
            assert block["blockHash"] == theirs["hash"]
        # The primary network too: the P-chain txs the API serves are txs of the node's
        # Index API (decoded here with the codec from the node's bytes).
        served: list[str] = []
        while time.monotonic() < deadline and len(served) < 50:
            answer = httpx.get(
                f"http://127.0.0.1:{api}/v1/networks/fuji/blockchains/p-chain/transactions",
                params={"pageSize": 100},
                timeout=10,
            ).json()
            served = [t["txHash"] for t in answer.get("transactions", [])]
            time.sleep(1)
        assert len(served) >= 50, served
        p_txs: set[str] = set()
        start = 0
        while True:
            page = httpx.post(
                f"http://127.0.0.1:{node}/ext/index/P/block",
                json={
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "index.getContainerRange",
                    "params": {"startIndex": start, "numToFetch": 1024, "encoding": "hex"},
                },
                timeout=30,
            ).json()
            if "error" in page:
                break
            for c in page["result"]["containers"]:
                inner = decode_container("P", bytes.fromhex(c["bytes"][2:-8])).inner
                p_txs |= {cb58_encode(tx.id_bytes(PCHAIN_TABLE)) for tx in block_txs(inner)}
            start += len(page["result"]["containers"])
        assert set(served) <= p_txs
        children = psutil.Process(proc.pid).children(recursive=True)
        assert len(children) >= 4  # devnet, its anvils, index, serve
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    gone, alive = psutil.wait_procs(children, timeout=30)
    assert not alive, [p.cmdline() for p in alive]
