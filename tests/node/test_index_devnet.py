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
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from avadata.decode.codec import warp
from avadata.decode.codec.containers import decode_container
from avadata.decode.codec.ids import cb58_decode, cb58_encode, node_id_str, sha256
from avadata.decode.codec.pchain import (
    AddSubnetValidatorTx,
    ConvertSubnetToL1Tx,
    CreateChainTx,
    DisableL1ValidatorTx,
    IncreaseL1ValidatorBalanceTx,
    RegisterL1ValidatorTx,
    RemoveSubnetValidatorTx,
    SetL1ValidatorWeightTx,
)
from avadata.decode.codec.pchain_blocks import PCHAIN_TABLE, block_txs
from avadata.decode.codec.proposervm import decode_proposervm
from avadata.devnet.evm.traffic import TrafficConfig
from avadata.devnet.network import Devnet, DevnetConfig
from avadata.devnet.primary.pchain_state import L1_FEE_PER_SECOND
from avadata.devnet.primary.simulator import PrimaryConfig, PrimarySim

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


# -- validators and platform API, replayed from the P-chain containers -------------------------


@dataclass
class Replayed:
    node_id: bytes
    weight: int
    start: int
    balance: int = 0
    updated: int = 0
    disabled: bool = False
    l1: bool = True
    end: int = 0


def replay_validators(
    node: str, removed: set[bytes] | None = None
) -> tuple[dict[bytes, dict[bytes, Replayed]], dict[str, bytes]]:
    """subnet -> validation ID -> validator, and chain name -> subnet, from the P-chain bytes
    the Index API serves, decoded with the codec and replayed by the rules of avalanchego
    (not by the simulator's state). `removed` collects the L1 validations set to weight 0."""
    subnets: dict[bytes, dict[bytes, Replayed]] = defaultdict(dict)
    chain_subnet: dict[str, bytes] = {}
    removed = set() if removed is None else removed
    converted: set[bytes] = set()
    for c in containers(node, "P/block"):
        inner = decode_container("P", bytes.fromhex(c["bytes"][2:-8])).inner
        t = getattr(inner, "time", 0)
        for tx in block_txs(inner):
            u = tx.unsigned
            vals = subnets[getattr(u, "subnet_id", b"")]
            if isinstance(u, CreateChainTx):
                chain_subnet[u.chain_name] = u.subnet_id
                chain_subnet[cb58_encode(tx.id_bytes(PCHAIN_TABLE))] = u.subnet_id
            elif isinstance(u, AddSubnetValidatorTx):
                v = u.validator
                vals[tx.id_bytes(PCHAIN_TABLE)] = Replayed(
                    v.node_id, v.weight, v.start, l1=False, end=v.end
                )
            elif isinstance(u, RemoveSubnetValidatorTx):
                for vid, r in list(vals.items()):
                    if r.node_id == u.node_id:
                        del vals[vid]
            elif isinstance(u, ConvertSubnetToL1Tx):
                converted.add(u.subnet_id)
                vals.clear()  # the permissioned validators are gone with the conversion
                for i, v in enumerate(u.validators):
                    vid = sha256(u.subnet_id + i.to_bytes(4, "big"))
                    vals[vid] = Replayed(v.node_id, v.weight, t, v.balance, t)
            elif isinstance(u, RegisterL1ValidatorTx):
                _, call, msg = warp.l1_message_of(u.message)
                assert isinstance(msg, warp.RegisterL1Validator)
                subnets[msg.subnet_id][sha256(call.payload)] = Replayed(
                    msg.node_id, msg.weight, t, u.balance, t
                )
            elif isinstance(u, SetL1ValidatorWeightTx):
                _, _, weight = warp.l1_message_of(u.message)
                assert isinstance(weight, warp.L1ValidatorWeight)
                for vals in subnets.values():
                    if weight.validation_id in vals:
                        if weight.weight == 0:
                            del vals[weight.validation_id]
                            removed.add(weight.validation_id)
                        else:
                            vals[weight.validation_id].weight = weight.weight
            elif isinstance(u, (IncreaseL1ValidatorBalanceTx, DisableL1ValidatorTx)):
                for vals in subnets.values():
                    r = vals.get(u.validation_id)  # type: ignore[assignment]
                    if r is None:
                        continue
                    r.balance = max(0, r.balance - L1_FEE_PER_SECOND * (t - r.updated))
                    r.updated = t
                    if isinstance(u, DisableL1ValidatorTx):
                        r.disabled, r.balance = True, 0
                    else:
                        r.balance += u.balance
    return subnets, chain_subnet


def test_validators_api_equals_a_replay_of_the_p_chain(net: Devnet) -> None:
    subnets, chain_subnet = replay_validators(net.url)
    p_time = datetime.fromisoformat(
        rpc(f"{net.url}/ext/bc/P", "platform.getTimestamp", {})["timestamp"].replace("Z", "+00:00")
    ).timestamp()
    chains = rpc(f"{net.url}/ext/bc/P", "platform.getBlockchains", {})["blockchains"]
    names = {c["name"]: c for c in chains}
    assert {"X-Chain", "C-Chain", "alpha", "beta"} <= set(names)
    seen_l1 = seen_subnet = 0
    for name in ("alpha", "beta"):
        subnet = chain_subnet[name]
        assert names[name]["subnetID"] == cb58_encode(subnet)
        want = {vid: r for vid, r in subnets[subnet].items() if r.l1 or r.end > p_time}
        for segment in (name, names[name]["id"]):  # by alias and by blockchain ID
            got = rpc(
                f"{net.url}/ext/bc/{segment}/validators", "validators.getCurrentValidators", {}
            )["validators"]
            assert {g["validationID"] for g in got} == {cb58_encode(v) for v in want}
        for g in got:
            r = want[cb58_decode(g["validationID"])]
            active = (not r.disabled) and r.balance - L1_FEE_PER_SECOND * (p_time - r.updated) > 0
            assert (g["nodeID"], g["weight"], g["startTimestamp"], g["isL1Validator"]) == (
                node_id_str(r.node_id),
                r.weight,
                r.start,
                r.l1,
            )
            assert g["isActive"] == (active if r.l1 else True)
            assert g["uptimePercentage"] in (100.0, 70.0)
            assert 0 <= g["uptimeSeconds"] <= time.time() - r.start
            seen_l1 += r.l1
            seen_subnet += not r.l1
        # the nodeIDs filter
        pick = [got[0]["nodeID"]]
        only = rpc(
            f"{net.url}/ext/bc/{name}/validators",
            "validators.getCurrentValidators",
            {"nodeIDs": pick},
        )["validators"]
        assert [v["nodeID"] for v in only] == pick
    assert seen_l1 >= 3 and seen_subnet >= 1
    assert any(r.disabled for r in subnets[chain_subnet["alpha"]].values())
    # errors: a chain without a validators API, a bad node ID
    assert httpx.post(f"{net.url}/ext/bc/C/validators", json={}).status_code == 404
    bad = httpx.post(
        f"{net.url}/ext/bc/alpha/validators",
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "validators.getCurrentValidators",
            "params": {"nodeIDs": ["NodeID-nope"]},
        },
    ).json()
    assert bad["error"]["code"] == -32602


def test_get_l1_validator_equals_a_replay_of_the_p_chain(net: Devnet) -> None:
    """platform.getL1Validator: the balance left at the P-chain's time after the continuous
    fee (0 once disabled), as a replay of the blocks computes it; a removed one is not found."""
    removed: set[bytes] = set()
    subnets, chain_subnet = replay_validators(net.url, removed)
    platform = f"{net.url}/ext/bc/P"
    stamp = rpc(platform, "platform.getTimestamp", {})["timestamp"]
    p_time = int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp())
    height = rpc(platform, "platform.getHeight", {})["height"]
    l1 = {vid: r for vid, r in subnets[chain_subnet["alpha"]].items() if r.l1}
    assert len(l1) >= 3 and removed
    for vid, r in l1.items():
        got = rpc(platform, "platform.getL1Validator", {"validationID": cb58_encode(vid)})
        balance = 0 if r.disabled else max(0, r.balance - L1_FEE_PER_SECOND * (p_time - r.updated))
        assert got["balance"] == str(balance)
        assert (got["nodeID"], got["weight"], got["startTime"]) == (
            node_id_str(r.node_id),
            str(r.weight),
            str(r.start),
        )
        assert (got["subnetID"], got["validationID"], got["height"]) == (
            cb58_encode(chain_subnet["alpha"]),
            cb58_encode(vid),
            height,
        )
    for vid in removed:
        with pytest.raises(LookupError, match="not found"):
            rpc(platform, "platform.getL1Validator", {"validationID": cb58_encode(vid)})


def genesis_of(node: str, name: str) -> dict[str, Any]:
    """The EVM genesis the P-chain's CreateChainTx for `name` carries."""
    for c in containers(node, "P/block"):
        inner = decode_container("P", bytes.fromhex(c["bytes"][2:-8])).inner
        for tx in block_txs(inner):
            if isinstance(tx.unsigned, CreateChainTx) and tx.unsigned.chain_name == name:
                genesis: dict[str, Any] = json.loads(tx.unsigned.genesis_data)
                return genesis
    raise AssertionError(f"no CreateChainTx for {name}")


def test_subnet_evm_extras_answer_the_started_and_changed_config(net: Devnet) -> None:
    assert net.node is not None
    for name in ("alpha", "beta"):
        url = net.rpc_urls[name]
        anvil = net.anvil_urls[name]
        genesis = genesis_of(net.url, name)["config"]
        record = net.node.sim.evm_config(name)
        assert record is not None
        chain_config = rpc(url, "eth_getChainConfig", [])
        assert chain_config["chainId"] == genesis["chainId"] == net.chains[name].spec.chain_id
        assert chain_config["feeConfig"] == genesis["feeConfig"]
        for key, value in genesis.items():
            if key.endswith("Config") and key != "feeConfig":  # genesis precompiles
                assert chain_config[key] == value, key
        upgrades = chain_config["upgrades"].get("precompileUpgrades", [])
        assert [next(iter(u)) for u in upgrades] == [p.key for p in record.precompile_upgrades]
        assert list(chain_config)[-1] == "upgrades"

        # eth_feeConfig at every block: genesis config until the first FeeManager change,
        # then each change from its block on, with lastChangedAt that block
        head = int(rpc(anvil, "eth_blockNumber", []), 16)
        changes = [(ch.block, ch.fee_config.json()) for ch in record.fee_changes]
        assert all(0 < b <= head for b, _ in changes)
        for n in sorted({0, 1, head, *(b for b, _ in changes), *(b - 1 for b, _ in changes)}):
            want_config, want_at = genesis["feeConfig"], 0
            for block, cfg in changes:
                if block <= n:
                    want_config, want_at = cfg, block
            got = rpc(url, "eth_feeConfig", [hex(n)])
            assert got == {"feeConfig": want_config, "lastChangedAt": want_at}, (name, n)
            block_hash = rpc(anvil, "eth_getBlockByNumber", [hex(n), False])["hash"]
            assert rpc(url, "eth_feeConfig", [{"blockHash": block_hash}]) == got
        assert rpc(url, "eth_feeConfig", []) == rpc(url, "eth_feeConfig", [hex(head)])

        # rules and precompiles flip exactly at their activation times
        for upgrade, rule in (("durangoTimestamp", "IsDurango"), ("etnaTimestamp", "IsEtna")):
            at = chain_config[upgrade]
            before = rpc(url, "eth_getActiveRulesAt", [at - 1])
            after = rpc(url, "eth_getActiveRulesAt", [at])
            assert before["platformRules"][rule] is False and after["platformRules"][rule] is True
        for p in record.precompile_upgrades:
            assert p.block_timestamp is not None
            before = rpc(url, "eth_getActivePrecompilesAt", [p.block_timestamp - 1])
            after = rpc(url, "eth_getActivePrecompilesAt", [p.block_timestamp])
            rules = rpc(url, "eth_getActiveRulesAt", [p.block_timestamp])
            if p.disable:
                assert p.key in before and p.key not in after and p.key not in rules["precompiles"]
            else:
                assert after[p.key]["blockTimestamp"] == p.block_timestamp
                assert rules["precompiles"][p.key] == {"timestamp": p.block_timestamp}
        head_time = int(rpc(anvil, "eth_getBlockByNumber", ["latest", False])["timestamp"], 16)
        assert rpc(url, "eth_getActiveRulesAt", []) == rpc(url, "eth_getActiveRulesAt", [head_time])

    # errors on that endpoint are geth's
    alpha = net.rpc_urls["alpha"]
    body = {"jsonrpc": "2.0", "id": 7, "method": "eth_feeConfig", "params": ["0xffffff"]}
    assert httpx.post(alpha, json=body).json()["error"]["code"] == -32000
    body["params"] = [12]
    assert httpx.post(alpha, json=body).json()["error"]["code"] == -32602
    body = {"jsonrpc": "2.0", "id": 8, "method": "eth_getActiveRulesAt", "params": ["soon"]}
    assert httpx.post(alpha, json=body).json()["error"]["code"] == -32602
    # a batch mixing a local method, a forwarded one and a bad call, in order
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "eth_getChainConfig", "params": []},
        {"jsonrpc": "2.0", "id": 2, "method": "eth_chainId", "params": []},
        {"jsonrpc": "2.0", "id": 3, "method": "eth_getChainConfig", "params": [1]},
    ]
    answers = httpx.post(alpha, json=batch).json()
    assert [a["id"] for a in answers] == [1, 2, 3]
    assert answers[0]["result"]["chainId"] == int(answers[1]["result"], 16) == 99901
    assert answers[2]["error"]["code"] == -32602
