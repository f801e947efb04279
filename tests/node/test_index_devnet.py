"""The devnet's Index API with real anvil chains: read by avalanchejs, and whole after kill -9.

1. avalanchejs 5.2.0 (tools/js/index-containers.cjs) reads every container of every index over
   HTTP and parses it with its own codec: the IDs it computes equal the IDs we report, and the
   transactions it finds are exactly those of an independent run of the simulators over the
   same C-chain blocks.
2. `avadata devnet` killed with SIGKILL while it produces live blocks, then restarted, several
   times: each index stays numbered 0..n-1, every wrapped block names the previous container as
   its parent, and nothing indexed before a kill changes.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from avadata.decode.codec.ids import cb58_encode
from avadata.decode.codec.proposervm import decode_proposervm
from avadata.devnet.network import Devnet, DevnetConfig
from avadata.devnet.primary_sim import PrimaryConfig, PrimarySim
from avadata.devnet.traffic import TrafficConfig

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "tools"
START = 1_767_225_600  # 2026-01-01
HISTORY = TrafficConfig(start_timestamp=START, days=8, blocks=40, txs_per_block=3, accounts=40)
PRIMARY = PrimaryConfig(p_blocks=40, x_blocks=30, history_blocks=40)
WRAPPED = ("P/block", "X/block", "C/block")
ALL = ("P/block", "X/block", "X/tx", "X/vtx", "C/block")


@pytest.fixture(scope="module")
def net() -> Iterator[Devnet]:
    config = DevnetConfig(port=0, history=HISTORY, live_interval=None, primary=PRIMARY)
    with Devnet(config) as devnet:
        yield devnet


def rpc(url: str, method: str, params: Any) -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    answer = httpx.post(url, json=body, timeout=30).json()
    if "error" in answer:
        raise LookupError(answer["error"]["message"])
    return answer["result"]


def containers(node: str, index: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    while True:
        try:
            page = rpc(
                f"{node}/ext/index/{index}",
                "index.getContainerRange",
                {"startIndex": len(out), "numToFetch": 1024, "encoding": "hex"},
            )
        except LookupError:
            return out
        out += page["containers"]


def test_avalanchejs_parses_every_container_with_our_ids(net: Devnet) -> None:
    run = subprocess.run(
        ["node", str(TOOLS / "js" / "index-containers.cjs"), net.url],
        capture_output=True,
        text=True,
        cwd=TOOLS,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    rows = [json.loads(line) for line in run.stdout.splitlines()]
    errors = [r for r in rows if "error" in r]
    assert not errors, errors[:5]
    assert all(r["computedId"] == r["id"] for r in rows)
    found: dict[str, list[str]] = defaultdict(list)
    for r in rows:
        found[r["index"]] += r["txIds"]
    # every index was read whole
    for index in ALL:
        assert [r["i"] for r in rows if r["index"] == index] == [
            str(i) for i in range(len(containers(net.url, index)))
        ]
    c_anvil = net.anvil_urls["C"]
    head = int(
        httpx.post(
            c_anvil, json={"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []}
        ).json()["result"],
        16,
    )
    assert sum(r["index"] == "C/block" for r in rows) == head > 0

    # the independent truth: the simulators run again over the same C-chain block times
    assert net.node is not None
    sim = PrimarySim(net.node.options.config)
    blocks = [rpc(c_anvil, "eth_getBlockByNumber", [hex(n), False]) for n in range(1, head + 1)]
    sim.history([(int(b["number"], 16), int(b["timestamp"], 16)) for b in blocks])
    by_chain: dict[str, set[str]] = defaultdict(set)
    for record in sim.records:
        by_chain[record.chain].add(record.tx_id)
    assert sorted(found["P/block"]) == sorted(by_chain["P"])
    assert set(found["X/block"]) | set(found["X/vtx"]) == by_chain["X"]
    assert len(found["X/block"]) + len(found["X/vtx"]) == len(by_chain["X"])  # no tx twice
    assert set(found["X/tx"]) <= by_chain["X"] and found["X/tx"]
    assert sorted(found["C/block"]) == sorted(by_chain["C"]) and found["C/block"]


# -- kill -9 -------------------------------------------------------------------------------------


def start_devnet(data_dir: Path) -> tuple[subprocess.Popen[str], str]:
    argv = [
        sys.executable,
        "-m",
        "avadata",
        "devnet",
        "--port",
        "0",
        "--data-dir",
        str(data_dir),
        "--blocks",
        "30",
        "--txs-per-block",
        "2",
        "--days",
        "3",
        "--live-interval",
        "0.2",
    ]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        assert line, "avadata devnet exited before printing its URL"
        if line.split()[:1] == ["node"]:
            return proc, line.split()[1]
    raise AssertionError("avadata devnet did not start")


def check_whole(node: str, before: dict[str, list[dict[str, Any]]]) -> dict[str, list[Any]]:
    now = {index: containers(node, index) for index in ALL}
    for index, rows in now.items():
        assert [c["index"] for c in rows] == [str(i) for i in range(len(rows))], index
        assert rows[: len(before.get(index, []))] == before.get(index, []), index
        if index in WRAPPED:
            for prev, c in zip(rows, rows[1:], strict=False):
                raw = bytes.fromhex(c["bytes"][2:-8])
                assert cb58_encode(decode_proposervm(raw).parent_id) == prev["id"], (index, c)
    return now


def test_kill_9_while_producing_leaves_a_whole_continuous_index(tmp_path: Path) -> None:
    rng = random.Random()
    before: dict[str, list[Any]] = {}
    for _ in range(3):
        proc, node = start_devnet(tmp_path)
        try:
            before = check_whole(node, before)
            # let it produce for a random while; what is indexed then must survive the kill
            time.sleep(rng.uniform(0.5, 2.5))
            before = check_whole(node, before)
            time.sleep(rng.uniform(0.0, 0.5))  # and the kill lands at any point of a round
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        time.sleep(0.5)  # anvil children follow their parent down
    proc, node = start_devnet(tmp_path)
    try:
        total = sum(len(v) for v in before.values())
        deadline = time.monotonic() + 20
        after = check_whole(node, before)
        while sum(len(v) for v in after.values()) <= total:
            assert time.monotonic() < deadline, "no containers after the last restart"
            time.sleep(0.3)
            after = check_whole(node, before)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
