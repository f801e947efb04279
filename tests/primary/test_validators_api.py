"""/v1/networks/{network}/validators/{nodeId} on a store the indexer filled from the devnet
node (simulated P-chain behind our real Index API and platform API), checked against the
simulator's own ledger: its stakers, the potential rewards it fixed, the rewards it paid."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from avadata.api.app import create_app
from avadata.decode.codec.ids import bech32_address, cb58_encode, node_id_str
from avadata.devnet.primary.network_ids import SUBNET_EVM_VM_ID
from avadata.devnet.primary.node import NodeOptions, PrimaryNode
from avadata.devnet.primary.simulator import PrimaryConfig, PrimarySim
from avadata.settings import Settings
from tests.api.http import TestClient
from tests.support.glacier_schema import conforms
from tests.support.primary_world import indexed, served_node
from tests.support.server import TOOLS, run_node, serving

CONFIG = PrimaryConfig(seed=5, start=1_767_225_600, days=30, p_blocks=120, x_blocks=20)
URL = "/v1/networks/fuji/validators/{}"
SDK_SCRIPT = Path(__file__).parents[1] / "client" / "validators.mjs"
PRIMARY_SDK_SCRIPT = Path(__file__).parents[1] / "client" / "primary.mjs"
STAKING = ("AddValidatorTx", "AddPermissionlessValidatorTx", "AddSubnetValidatorTx")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, PrimarySim]]:
    folder: Path = tmp_path_factory.mktemp("validators")
    node = PrimaryNode(NodeOptions(CONFIG, data_dir=folder, live_interval=None))
    node.start()
    with served_node(node) as url:
        engine = indexed(folder / "store.db", url)
        settings = Settings(db_url=str(engine.url), page_token_secret="test-secret-0123456789")
        with TestClient(create_app(settings), raise_server_exceptions=False) as c:
            yield c, node.sim


def periods(c: TestClient, node_id: str, **q: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    token = None
    while True:
        params = dict(q, pageSize=2, **({"pageToken": token} if token else {}))
        r = c.get(URL.format(node_id), params=params)
        assert r.status_code == 200, r.text
        body = r.json()
        out += body["validators"]
        token = body.get("nextPageToken")
        if token is None:
            return out


def test_every_validation_period_equals_the_simulators_ledger(
    world: tuple[TestClient, PrimarySim],
) -> None:
    c, sim = world
    state = sim.p.state
    now = state.time
    staking = {r.tx_id: r for r in sim.records if r.chain == "P" and r.type in STAKING}
    records = {r.tx_id: r for r in sim.records}
    assert len(staking) > 10
    seen: dict[str, int] = {"active": 0, "completed": 0, "pending": 0, "removed": 0}
    served: set[str] = set()
    for n in sim.keys.nodes:
        got = periods(c, node_id_str(n.node_id))
        assert [p["startTimestamp"] for p in got] == sorted(
            (p["startTimestamp"] for p in got), reverse=True
        )
        for p in got:
            served.add(p["txHash"])
            seen[p["validationStatus"]] += 1
            assert p["nodeId"] == node_id_str(n.node_id)
            live = state.stakers.get(bytes_of(p["txHash"]))
            if p["validationStatus"] == "active":
                assert live is not None and live.start <= now < live.end, p
                assert int(p["amountStaked"]) == live.weight
                if live.kind == "validator":
                    pr = p["potentialRewards"]
                    assert int(pr["validationRewardAmount"]) == live.potential_reward
                    assert int(pr["delegationRewardAmount"]) == live.delegatee_reward
                    delegators = [
                        s
                        for s in state.stakers.values()
                        if s.kind == "delegator" and s.node_id == n.node_id
                    ]
                    assert p["delegatorCount"] == len(delegators)
                    assert int(p["amountDelegated"]) == sum(d.weight for d in delegators)
                    assert p["uptimePerformance"] in (100.0, 70.0)
            elif p["validationStatus"] == "completed":
                assert live is None  # the simulator removed it at its end
                paid = sum(a for _, a, _ in state.reward_utxos.get(bytes_of(p["txHash"]), []))
                r = p["rewards"]
                assert int(r["validationRewardAmount"]) + int(r["delegationRewardAmount"]) == paid
                if "rewardTxHash" in r:
                    assert p["endTimestamp"] <= now
            elif p["validationStatus"] == "removed":
                assert live is None
                ender = records[p["removeTxHash"]]
                assert ender.type in ("RemoveSubnetValidatorTx", "ConvertSubnetToL1Tx")
                assert p["removeTimestamp"] == ender.time
    # every staking tx of the simulator is served, and the statuses it produced appear
    assert served == set(staking)
    assert seen["active"] and seen["completed"] and seen["removed"] >= 2


def bytes_of(cb58: str) -> bytes:
    from avadata.decode.codec.ids import cb58_decode

    return cb58_decode(cb58)


def test_status_filter_sort_and_errors(world: tuple[TestClient, PrimarySim]) -> None:
    c, sim = world
    busiest = max(sim.keys.nodes, key=lambda n: len(periods(c, node_id_str(n.node_id))))
    nid = node_id_str(busiest.node_id)
    every = periods(c, nid)
    for status in ("active", "completed", "pending", "removed"):
        assert periods(c, nid, validationStatus=status) == [
            p for p in every if p["validationStatus"] == status
        ]
    asc = periods(c, nid, sortOrder="asc")
    assert asc == list(reversed(every))
    bad = c.get(URL.format("NodeID-xyz"))
    assert bad.status_code == 400 and "nodeId" in bad.json()["message"]
    assert c.get(URL.format(nid), params={"validationStatus": "gone"}).status_code == 400
    assert c.get(URL.format(nid), params={"pageSize": 101}).status_code == 400
    assert c.get("/v1/networks/moon/validators/" + nid).status_code == 400
    unknown = node_id_str(bytes(20))
    assert c.get(URL.format(unknown)).json() == {"validators": []}
    assert {p["subnetId"] for p in every} <= {
        cb58_encode(bytes(32)),
        *map(cb58_encode, sim.subnet_of.values()),
    }


def test_the_official_sdk_parses_every_page(
    world: tuple[TestClient, PrimarySim], tmp_path: Path
) -> None:
    c, sim = world
    node_ids = [node_id_str(n.node_id) for n in sim.keys.nodes]
    served = {nid: len(periods(c, nid)) for nid in node_ids}
    with serving(c.app) as base:
        out, stderr = run_node(
            SDK_SCRIPT, base, json.dumps({"toolsDir": str(TOOLS), "nodeIds": node_ids})
        )
    assert out["_returncode"] == 0 and out["ok"], (out, stderr)
    assert sum(out["statuses"].values()) == sum(served.values())
    assert {"active", "completed", "removed"} <= set(out["statuses"])


def test_p_chain_listing_carries_staking_and_chain_facts(
    world: tuple[TestClient, PrimarySim],
) -> None:
    c, sim = world
    state = sim.p.state
    txs: list[dict[str, Any]] = []
    token = None
    while True:
        params: dict[str, Any] = {"pageSize": 100, **({"pageToken": token} if token else {})}
        body = c.get("/v1/networks/fuji/blockchains/p-chain/transactions", params=params).json()
        txs += body["transactions"]
        token = body.get("nextPageToken")
        if token is None:
            break
    chains = [t for t in txs if t["txType"] == "CreateChainTx"]
    assert {t["blockchainInfo"]["chainName"] for t in chains} == set(sim.chain_of)
    for t in chains:
        info = t["blockchainInfo"]
        config = sim.evm_config(info["chainName"])
        assert config is not None
        assert info["genesisData"]["config"]["chainId"] == config.chain_id
        assert info["genesisData"] == config.genesis_json()
        assert info["vmId"] == cb58_encode(SUBNET_EVM_VM_ID)
    staking = [
        t
        for t in txs
        if t["txType"] in ("AddPermissionlessValidatorTx", "AddPermissionlessDelegatorTx")
    ]
    current = rewarded = 0
    for t in staking:
        staker = state.stakers.get(bytes_of(t["txHash"]))
        if staker is not None:  # still staking: the node's potential reward
            assert t["estimatedReward"] == str(staker.potential_reward)
            assert "rewardTxHash" not in t
            assert staker.rewards_owner is not None
            assert t["rewardAddresses"] == [
                "P-" + bech32_address(a, "fuji") for a in staker.rewards_owner.addresses
            ]
            current += 1
        else:  # rewarded (or aborted) by a RewardValidatorTx of the ledger
            assert records_of(sim)[t["rewardTxHash"]].type == "RewardValidatorTx"
            rewarded += 1
    assert current and rewarded


def records_of(sim: PrimarySim) -> dict[str, Any]:
    return {r.tx_id: r for r in sim.records}


def test_the_indexers_formula_rewards_equal_the_ledgers_without_the_nodes_figures(
    world: tuple[TestClient, PrimarySim],
) -> None:
    """The supply replay (anchored by platform.getCurrentSupply) gives every primary staker
    the potential reward the simulator fixed when it added it, aborted ones included; with
    the node's current-staker snapshot gone, the API serves those figures."""
    from sqlalchemy import delete, insert, select

    from avadata.store.engine import make_engine
    from avadata.store.schema import primary_staker_live, primary_validations

    c, sim = world
    state = sim.p.state
    engine = make_engine(c.app.state.avadata.settings.db_url)  # the app's is read-only
    v = primary_validations.c
    with engine.connect() as conn:
        rows = conn.execute(
            select(v.tx_hash, v.formula_reward, v.reward_committed).where(
                v.kind.in_(("validator", "delegator"))
            )
        ).all()
        live_rows = [dict(r._mapping) for r in conn.execute(select(primary_staker_live))]
    ledger = {cb58_encode(tx): p for tx, p in state.potential_rewards.items()}
    assert len(ledger) > 10 and all(p > 0 for p in ledger.values())
    assert {r.tx_hash: int(r.formula_reward) for r in rows} == ledger
    assert any(r.reward_committed is False for r in rows)  # forfeits moved the supply too
    assert live_rows
    with engine.begin() as conn:
        conn.execute(delete(primary_staker_live))
    try:
        txs: list[dict[str, Any]] = []
        token = None
        while True:
            params: dict[str, Any] = {"pageSize": 100, **({"pageToken": token} if token else {})}
            body = c.get("/v1/networks/fuji/blockchains/p-chain/transactions", params=params)
            txs += body.json()["transactions"]
            token = body.json().get("nextPageToken")
            if token is None:
                break
        staking = {t["txHash"]: t for t in txs if t["txHash"] in ledger}
        assert staking.keys() == ledger.keys()
        for tx_hash, t in staking.items():
            assert t["estimatedReward"] == str(ledger[tx_hash])
        active = 0
        for n in sim.keys.nodes:
            for p in periods(c, node_id_str(n.node_id), validationStatus="active"):
                if p["txHash"] in ledger:
                    pr = p["potentialRewards"]["validationRewardAmount"]
                    assert pr == str(ledger[p["txHash"]])
                    active += 1
        assert active
    finally:
        with engine.begin() as conn:
            conn.execute(insert(primary_staker_live), live_rows)


STAKING_TXS = (*STAKING, "AddDelegatorTx", "AddPermissionlessDelegatorTx")
P_TXS = "/v1/networks/fuji/blockchains/p-chain/transactions"


def _stake_owners(sim: PrimarySim) -> dict[str, set[str]]:
    """fuji address -> CB58 IDs of the simulator's stakers (not yet rewarded nor removed)
    whose stake it owns."""
    out: dict[str, set[str]] = {}
    for staker in sim.p.state.stakers.values():
        for o in staker.stake:
            out_ = getattr(o.output, "output", o.output)  # a stakeable lock wraps the output
            for a in out_.addresses:
                out.setdefault(bech32_address(a, "fuji"), set()).add(cb58_encode(staker.tx_id))
    return out


def _paged(c: TestClient, url: str, key: str, **q: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    token = None
    while True:
        r = c.get(url, params=dict(q, **({"pageToken": token} if token else {})))
        assert r.status_code == 200, r.text
        body = r.json()
        conforms(
            body,
            "ListPChainTransactionsResponse"
            if key == "transactions"
            else "ListPChainUtxosResponse",
        )
        out += body[key]
        token = body.get("nextPageToken")
        if token is None:
            return out


def test_list_staking_lists_the_stakes_still_locked(world: tuple[TestClient, PrimarySim]) -> None:
    """transactions:listStaking of an address: its staking txs whose stake the simulator
    still holds (its stakers: active or pending, not yet rewarded nor removed), in pages."""
    c, sim = world
    live = {cb58_encode(tx) for tx in sim.p.state.stakers}
    owners = _stake_owners(sim)
    assert len(owners) > 2
    ended_left_out = 0
    for address, stakes in owners.items():
        listed = _paged(c, P_TXS + ":listStaking", "transactions", addresses=address, pageSize=2)
        hashes = [t["txHash"] for t in listed]
        assert len(hashes) == len(set(hashes))
        ever = _paged(
            c, P_TXS, "transactions", addresses=address, txTypes=list(STAKING_TXS), pageSize=100
        )
        every = {t["txHash"] for t in ever}
        assert set(hashes) == every & live, address
        assert stakes <= set(hashes)
        assert [t["blockTimestamp"] for t in listed] == sorted(
            (t["blockTimestamp"] for t in listed), reverse=True
        )
        ended_left_out += len(every - live)
    assert ended_left_out  # the listing leaves out completed stakes
    busiest = max(owners, key=lambda a: len(owners[a]))
    with serving(c.app) as base:
        args = {
            "toolsDir": str(TOOLS),
            "addresses": busiest,
            "blockchainId": "p-chain",
            "stakingAddresses": busiest,
        }
        out, stderr = run_node(PRIMARY_SDK_SCRIPT, base, json.dumps(args))
    assert out["_returncode"] == 0 and out["ok"], (out, stderr)
    served = len(_paged(c, P_TXS + ":listStaking", "transactions", addresses=busiest))
    assert out["summary"]["transactions.listActiveStakingTransactions"]["items"] == served > 0


def test_staked_utxos_carry_their_stake_period(world: tuple[TestClient, PrimarySim]) -> None:
    """utxoStartTimestamp / utxoEndTimestamp of each staked UTXO: when the simulator's staker
    locked it and when it unlocks."""
    c, sim = world
    stakers = {cb58_encode(s.tx_id): s for s in sim.p.state.stakers.values()}
    checked = 0
    for address in _stake_owners(sim):
        url = "/v1/networks/fuji/blockchains/p-chain/utxos"
        for u in _paged(c, url, "utxos", addresses=address, includeSpent="true", pageSize=100):
            if not u["staked"]:
                assert "utxoStartTimestamp" not in u and "utxoEndTimestamp" not in u
                continue
            staker = stakers.get(u["txHash"])
            if staker is not None:
                assert (u["utxoStartTimestamp"], u["utxoEndTimestamp"]) == (
                    staker.start,
                    staker.end,
                )
                checked += 1
            else:  # an ended stake: its period is the validators route's
                assert u["utxoEndTimestamp"] > u["utxoStartTimestamp"]
    assert checked > 2


def test_network_details_sum_the_simulators_active_stakers(
    world: tuple[TestClient, PrimarySim],
) -> None:
    """getNetworkDetails: counts, stake and potential rewards of the simulator's primary
    validators and delegators active at the P-chain's current time; the staking ratio over
    the supply the node reports."""
    from decimal import Decimal

    c, sim = world
    state = sim.p.state
    active = [
        s
        for s in state.stakers.values()
        if s.kind in ("validator", "delegator")
        and s.subnet_id == bytes(32)
        and s.start <= state.time
    ]
    body = c.get("/v1/networks/fuji").json()
    conforms(body, "GetNetworkDetailsResponse")
    v, d = body["validatorDetails"], body["delegatorDetails"]
    validators = [s for s in active if s.kind == "validator"]
    delegators = [s for s in active if s.kind == "delegator"]
    assert validators and delegators
    assert v["validatorCount"] == len(validators)
    assert int(v["totalAmountStaked"]) == sum(s.weight for s in validators)
    assert d["delegatorCount"] == len(delegators)
    assert int(d["totalAmountStaked"]) == sum(s.weight for s in delegators)
    assert int(v["estimatedAnnualStakingReward"]) == sum(s.potential_reward for s in active)
    staked = sum(s.weight for s in active)
    assert Decimal(v["stakingRatio"]) == Decimal(staked) / Decimal(state.supply)
    assert c.get("/v1/networks/moon").status_code == 400
    args = {
        "toolsDir": str(TOOLS),
        "addresses": "P-" + bech32_address(bytes(20), "fuji"),
        "blockchainId": "p-chain",
        "networkDetails": True,
    }
    with serving(c.app) as base:
        out, stderr = run_node(PRIMARY_SDK_SCRIPT, base, json.dumps(args))
    assert out["_returncode"] == 0 and out["ok"], (out, stderr)
    assert out["summary"]["networkDetails"]["validatorDetails"]["validatorCount"] == len(validators)


def test_primary_answers_carry_the_head_and_its_lag(
    world: tuple[TestClient, PrimarySim],
) -> None:
    """X-Avadata-Head / -Lag-Seconds on the primary routes: the P-chain's last block (the
    simulator's own height and time) on P-chain and network-wide paths, the X-chain's on
    x-chain paths; none on a local network's unknown chain ID."""
    c, sim = world
    height, at = sim.p.state.heights[-1]
    node = node_id_str(sim.keys.nodes[0].node_id)
    for path in (
        "/v1/networks/fuji/blockchains/p-chain/transactions",
        "/v1/networks/fuji/blockchains/11111111111111111111111111111111LpoYY/utxos?addresses=x",
        URL.format(node),
        "/v1/networks/fuji",
        "/v1/networks/fuji/subnets",
    ):
        r = c.get(path)
        assert r.headers.get("x-avadata-head") == str(height), (path, r.headers)
        lag = int(r.headers["x-avadata-lag-seconds"])
        assert abs(lag - (int(time.time()) - at)) <= 2, path
    x_top = max(r.height for r in sim.records if r.chain == "X" and r.index == "X/block")
    r = c.get("/v1/networks/fuji/blockchains/x-chain/transactions")
    assert r.status_code == 200 and r.headers["x-avadata-head"] == str(x_top)
    assert (
        "x-avadata-head" not in c.get("/v1/networks/fuji/blockchains/c-chain/transactions").headers
    )
