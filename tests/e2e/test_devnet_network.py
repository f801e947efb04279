"""Determinism, the node facade, the Devnet lifecycle and anvil process hygiene."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from eth_abi.abi import decode
from typer.testing import CliRunner

from avadata.cli.main import app
from avadata.devnet.evm.anvil import AnvilOptions, start_anvil
from avadata.devnet.evm.artifacts import calldata
from avadata.devnet.evm.traffic import SMALL, TrafficConfig, start_with_traffic
from avadata.devnet.facade.routes import ChainRoute, RpcFault
from avadata.devnet.facade.server import FacadeServer
from avadata.devnet.network import ChainSpec, Devnet, DevnetConfig
from avadata.devnet.rpc import Rpc
from tests.support.devnet import SeededChain

pytestmark = pytest.mark.e2e

# Smallest history that still funds 1,000 addresses: 5 setup blocks + a little traffic.
TINY = TrafficConfig(days=4, blocks=24, txs_per_block=4)


def _hashes(url: str, last: int) -> list[str]:
    with Rpc(url) as rpc:
        blocks = rpc.batch([("eth_getBlockByNumber", [hex(n), False]) for n in range(last + 1)])
    return [b["hash"] for b in blocks]


def _post(url: str, method: str, params: list[object] | None = None) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or []}
    return httpx.post(url, json=body, timeout=30)


# -- determinism -----------------------------------------------------------------------------


def test_same_seed_and_chain_give_the_same_block_hashes(devnet_chain: SeededChain):
    """A second chain from the same seed is the same chain, block hash for block hash."""
    config = replace(SMALL, seed=devnet_chain.ledger.seed)
    anvil, ledger = start_with_traffic(devnet_chain.chain_id, config)
    try:
        last = devnet_chain.ledger.last_block
        assert ledger.last_block == last
        assert _hashes(anvil.rpc_url, last) == _hashes(devnet_chain.rpc_url, last)
    finally:
        anvil.stop()


def test_another_seed_or_chain_id_gives_another_chain():
    runs = [(43113, 1), (43113, 2), (99901, 1)]
    tips = []
    for chain_id, seed in runs:
        anvil, ledger = start_with_traffic(chain_id, replace(TINY, seed=seed))
        try:
            tips.append((ledger.addresses[:3], _hashes(anvil.rpc_url, ledger.last_block)[-1]))
        finally:
            anvil.stop()
    assert len({str(t) for t in tips}) == 3


# -- facade ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def facade(devnet_chain: SeededChain):
    l1 = start_anvil(AnvilOptions(chain_id=99901, automine=True))
    server = FacadeServer(
        [
            ChainRoute("C", devnet_chain.chain_id, devnet_chain.rpc_url),
            ChainRoute("alpha", 99901, l1.rpc_url, aliases=("alias-of-alpha",)),
        ],
        port=0,
    )
    server.start()
    yield server
    server.stop()
    l1.stop()


def test_facade_forwards_to_the_right_chain(facade):
    for segment, chain_id in [("C", 43113), ("43113", 43113), ("alpha", 99901), ("99901", 99901)]:
        answer = _post(facade.rpc_url(segment), "eth_chainId").json()
        assert int(answer["result"], 16) == chain_id, segment
    assert int(_post(facade.rpc_url("alias-of-alpha"), "eth_chainId").json()["result"], 16) == 99901


def test_facade_answers_exactly_what_anvil_answers(facade, devnet_chain):
    last = hex(devnet_chain.ledger.last_block)
    params = [last, True]
    direct = _post(devnet_chain.rpc_url, "eth_getBlockByNumber", params).json()
    assert _post(facade.rpc_url("C"), "eth_getBlockByNumber", params).json() == direct
    batch = [
        {"jsonrpc": "2.0", "id": i, "method": "eth_getBlockReceipts", "params": [hex(i + 1)]}
        for i in range(20)
    ]
    via = httpx.post(facade.rpc_url("C"), json=batch, timeout=30).json()
    assert via == httpx.post(devnet_chain.rpc_url, json=batch, timeout=30).json()
    error = _post(facade.rpc_url("C"), "no_suchMethod").json()
    assert "error" in error


def test_facade_serves_the_metadata_the_nft_uris_point_to(facade, devnet_chain):
    with Rpc(devnet_chain.rpc_url) as rpc:
        roles = devnet_chain.ledger.roles
        raw = rpc.call(
            "eth_call",
            [{"to": roles["collectible"], "data": calldata("tokenURI(uint256)", 4)}, "latest"],
        )
        (uri,) = decode(["string"], bytes.fromhex(raw[2:]))
        raw = rpc.call(
            "eth_call", [{"to": roles["multi"], "data": calldata("uri(uint256)", 5)}, "latest"]
        )
        (template,) = decode(["string"], bytes.fromhex(raw[2:]))
    path = uri.removeprefix("http://127.0.0.1:9650")
    assert httpx.get(facade.url + path).json()["name"] == "Devnet Punks #4"
    path = template.removeprefix("http://127.0.0.1:9650").replace("{id}", f"{5:064x}")
    assert httpx.get(facade.url + path).json()["name"] == "Devnet Multi #5"


def test_facade_unknown_chain_and_health(facade):
    assert _post(facade.rpc_url("nope"), "eth_chainId").status_code == 404
    health = httpx.get(f"{facade.url}/ext/health").json()
    assert health["healthy"] is True and set(health["checks"]) == {"C", "alpha"}
    rpc_form = _post(f"{facade.url}/ext/health", "health.health").json()
    assert rpc_form["result"]["healthy"] is True and rpc_form["id"] == 1
    assert "error" in _post(f"{facade.url}/ext/health", "health.nope").json()


def test_facade_answers_local_methods_and_forwards_the_rest_in_order(devnet_chain):
    async def chain_config(params):
        return {"chainId": devnet_chain.chain_id}

    async def refuse(params):
        raise RpcFault(-32000, "refused", data=params)

    local = {"eth_getChainConfig": chain_config, "test_refuse": refuse}
    server = FacadeServer(
        [ChainRoute("C", devnet_chain.chain_id, devnet_chain.rpc_url, local_methods=local)],
        port=0,
    )
    server.start()
    try:
        methods = ["eth_chainId", "eth_getChainConfig", "test_refuse", "eth_blockNumber"]
        batch = [
            {"jsonrpc": "2.0", "id": i, "method": m, "params": [i]} for i, m in enumerate(methods)
        ]
        batch[0]["params"] = batch[3]["params"] = []
        answers = httpx.post(server.rpc_url("C"), json=batch, timeout=30).json()
        assert [a["id"] for a in answers] == [0, 1, 2, 3]
        assert int(answers[0]["result"], 16) == devnet_chain.chain_id
        assert answers[1]["result"] == {"chainId": devnet_chain.chain_id}
        assert answers[2]["error"] == {"code": -32000, "message": "refused", "data": [2]}
        assert int(answers[3]["result"], 16) == devnet_chain.ledger.last_block
        single = _post(server.rpc_url("C"), "eth_getChainConfig").json()
        assert single["result"] == {"chainId": devnet_chain.chain_id}
    finally:
        server.stop()


# -- Devnet ----------------------------------------------------------------------------------


def test_devnet_serves_each_chain_mines_live_blocks_and_resumes(tmp_path: Path):
    chains = (ChainSpec("C", 43113), ChainSpec("alpha", 99901))
    config = DevnetConfig(
        port=0, data_dir=tmp_path, chains=chains, history=TINY, live_interval=0.3, live_txs=3
    )
    with Devnet(config) as net:
        pids = [c.anvil.pid for c in net]
        for name, chain_id in (("C", 43113), ("alpha", 99901)):
            url = f"{net.url}/ext/bc/{name}/rpc"
            assert net.rpc_urls[name] == url
            assert int(_post(url, "eth_chainId").json()["result"], 16) == chain_id
        history_head = TINY.blocks
        deadline = time.monotonic() + 20
        while int(_post(net.rpc_urls["C"], "eth_blockNumber").json()["result"], 16) <= history_head:
            assert time.monotonic() < deadline, "no live block"
            time.sleep(0.2)
    # Stopped: the anvils are gone and each chain's state and ledger were saved.
    for pid in pids:
        assert not _alive(pid)
    assert (tmp_path / "chain-43113" / "anvil-state.json").exists()
    with Devnet(replace(config, live_interval=None)) as again:
        head = int(_post(again.rpc_urls["C"], "eth_blockNumber").json()["result"], 16)
        assert head > history_head, "reloaded, not regenerated"
        assert again.chains["C"].ledger.last_block == head
        # Without live blocks the devnet automines what users send, as a node would.
        user = again.chains["C"].ledger.addresses[0]
        tx = {"from": user, "to": again.chains["C"].ledger.addresses[1], "value": "0x1"}
        tx_hash = _post(again.rpc_urls["C"], "eth_sendTransaction", [tx]).json()["result"]
        receipt = _post(again.rpc_urls["C"], "eth_getTransactionReceipt", [tx_hash]).json()
        assert receipt["result"]["status"] == "0x1"


# -- anvil process hygiene -------------------------------------------------------------------


def _alive(pid: int) -> bool:
    """True while `pid` runs (a zombie awaiting its reaper counts as dead)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False


def test_anvil_dies_when_its_parent_is_killed():
    script = (
        "from avadata.devnet.evm.anvil import start_anvil; import time;"
        "a = start_anvil(); print(a.pid, flush=True); time.sleep(60)"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    pid = int(parent.stdout.readline())
    assert _alive(pid)
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 5
    while _alive(pid):
        assert time.monotonic() < deadline, "anvil outlived its parent"
        time.sleep(0.05)


def test_devnet_help_describes_the_verb_with_an_example():
    result = CliRunner().invoke(app, ["devnet", "--help"])
    assert result.exit_code == 0
    assert "Example: avadata devnet" in result.output and "--data-dir" in result.output


def test_devnet_cli_prints_urls_serves_and_stops_cleanly_on_sigterm(tmp_path: Path):
    argv = [sys.executable, "-m", "avadata", "devnet", "--port", "0", "--data-dir", str(tmp_path)]
    argv += ["--blocks", "24", "--txs-per-block", "4", "--days", "4", "--live-interval", "0"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    try:
        lines = [proc.stdout.readline() for _ in range(5)]
        # "  <name>  chain <id>  <facade RPC URL>  (anvil ...)" per chain, after two lines
        urls = {line.split()[0]: line.split()[3] for line in lines[2:]}
        assert set(urls) == {"C", "alpha", "beta"}
        assert int(_post(urls["beta"], "eth_chainId").json()["result"], 16) == 99902
        anvil_pids = _children(proc.pid)
        assert len(anvil_pids) == 3
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    assert not any(_alive(pid) for pid in anvil_pids)
    assert (
        sorted(p.name for p in tmp_path.glob("chain-*/anvil-state.json"))
        == ["anvil-state.json"] * 3
    )


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]
