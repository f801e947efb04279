"""listValidators, listDelegators, listL1Validators and the rewards lists on stores the
indexer filled from the devnet node (SQLite and PostgreSQL), checked against the node's own
platform API (platform.getCurrentValidators, platform.getL1Validator), the simulator's ledger
(stakers, reward UTXOs, L1 validators) and second computations here (filters, sorts, the
delegation capacity and the fee split); every page against the reference's JSON Schemas, and
the official SDK parses every list."""

from __future__ import annotations

import asyncio
import gc
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine, event

from avadata.api.app import create_app
from avadata.decode.codec.ids import bech32_address, cb58_encode, node_id_str
from avadata.devnet.primary.node import NodeOptions, PrimaryNode
from avadata.devnet.primary.simulator import PrimaryConfig, PrimarySim
from avadata.indexer.primary.run import index_node
from avadata.settings import Settings
from avadata.store.engine import make_engine
from avadata.store.migrate import migrate
from avadata.store.primary.queries import stakers
from tests.api.http import TestClient
from tests.store.conftest import pg_cluster  # noqa: F401
from tests.support.glacier_schema import conforms
from tests.support.primary_world import indexed, served_node
from tests.support.server import TOOLS, run_node, serving

CONFIG = PrimaryConfig(seed=5, start=1_767_225_600, days=30, p_blocks=120, x_blocks=20)
NET = "/v1/networks/fuji"
PRIMARY = cb58_encode(bytes(32))
SDK_SCRIPT = Path(__file__).parents[1] / "client" / "staking.mjs"
SCHEMAS = {
    "validators": "ListValidatorDetailsResponse",
    "delegators": "ListDelegatorDetailsResponse",
    "l1Validators": "ListL1ValidatorsResponse",
    "rewards:listPending": "ListPendingRewardsResponse",
    "rewards": "ListHistoricalRewardsResponse",
}
KEYS = {
    "validators": "validators",
    "delegators": "delegators",
    "l1Validators": "validators",
    "rewards:listPending": "pendingRewards",
    "rewards": "historicalRewards",
}


class World:
    def __init__(self, sim: PrimarySim, node_url: str, clients: dict[str, TestClient]) -> None:
        self.sim, self.node_url, self.clients = sim, node_url, clients

    def platform(self, method: str, **params: Any) -> Any:
        body = {"jsonrpc": "2.0", "id": 1, "method": f"platform.{method}", "params": params}
        reply = httpx.post(self.node_url + "/ext/bc/P", json=body, timeout=30).json()
        assert "result" in reply, reply
        return reply["result"]


@pytest.fixture(scope="module")
def world(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[World]:
    folder: Path = tmp_path_factory.mktemp("staking-lists")
    cluster = request.getfixturevalue("pg_cluster")
    node = PrimaryNode(NodeOptions(CONFIG, data_dir=folder, live_interval=None))
    node.start()
    with served_node(node) as url:
        lite = indexed(folder / "store.db", url)
        pg_url = cluster.url(cluster.create_database("staking_lists"))
        pg = make_engine(pg_url)
        migrate(pg)
        asyncio.run(index_node(pg, url, once=True))
        pg.dispose()
        clients = {}
        try:
            for name, db in (("sqlite", str(lite.url)), ("postgres", pg_url)):
                settings = Settings(db_url=db, page_token_secret="test-secret-0123456789")
                clients[name] = TestClient(create_app(settings), raise_server_exceptions=False)
                clients[name].__enter__()
            yield World(node.sim, url, clients)
        finally:
            for c in clients.values():
                c.__exit__(None, None, None)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def client(world: World, request: pytest.FixtureRequest) -> TestClient:
    return world.clients[request.param]


def pages(c: TestClient, route: str, size: int = 3, **q: Any) -> list[dict[str, Any]]:
    """Every item of a list, page by page, each page checked against the reference schema."""
    out: list[dict[str, Any]] = []
    token = None
    while True:
        params = dict(q, pageSize=size, **({"pageToken": token} if token else {}))
        r = c.get(f"{NET}/{route}", params=params)
        assert r.status_code == 200, r.text
        body = r.json()
        conforms(body, SCHEMAS[route])
        out += body[KEYS[route]]
        token = body.get("nextPageToken")
        if token is None:
            return out


def _now(sim: PrimarySim) -> int:
    return sim.p.state.time


# -- listValidators -----------------------------------------------------------------------------


def test_validators_are_every_validation_period_and_the_nodes_current_ones(
    world: World, client: TestClient
) -> None:
    sim = world.sim
    every = pages(client, "validators", size=7)
    kinds = ("AddValidatorTx", "AddPermissionlessValidatorTx", "AddSubnetValidatorTx")
    staking = {r.tx_id for r in sim.records if r.chain == "P" and r.type in kinds}
    assert [v["txHash"] for v in every] and {v["txHash"] for v in every} == staking
    assert len(every) == len(staking)
    # newest staking tx first: the same order as one page of 100
    assert every == pages(client, "validators", size=100)
    current = {
        v["txID"]: v
        for v in world.platform("getCurrentValidators")["validators"]
        if int(v["startTime"]) <= _now(sim)
    }
    active = [v for v in every if v["validationStatus"] == "active" and v["subnetId"] == PRIMARY]
    assert {v["txHash"] for v in active} == set(current)
    for v in active:
        node = current[v["txHash"]]
        assert (v["nodeId"], v["amountStaked"]) == (node["nodeID"], node["weight"])
        assert (v["startTimestamp"], v["endTimestamp"]) == (
            int(node["startTime"]),
            int(node["endTime"]),
        )
        assert float(v["delegationFee"]) == float(node["delegationFee"])
        assert v["delegatorCount"] == int(node["delegatorCount"])
        assert v["amountDelegated"] == node["delegatorWeight"]
        assert v["potentialRewards"]["validationRewardAmount"] == node["potentialReward"]
        assert v["uptimePerformance"] == float(node["uptime"])
        weight, held = int(node["weight"]), int(node["delegatorWeight"])
        ceiling = min(3_000_000 * 10**9, 5 * weight)
        assert int(v["delegationCapacity"]) == max(0, ceiling - weight - held)


def _value(v: dict[str, Any], sort: str, now: int) -> float:
    if sort == "timeRemaining":
        return v["endTimestamp"]
    if sort == "delegationFee":
        return float(v.get("delegationFee", -1))
    if sort == "delegationCapacity":
        return int(v.get("delegationCapacity", -1))
    if sort == "uptimePerformance":
        return v["uptimePerformance"] if v["validationStatus"] == "active" else -1
    return 0


@pytest.mark.parametrize(
    "sort", ["timeRemaining", "delegationFee", "delegationCapacity", "uptimePerformance"]
)
def test_validators_sorted_by_each_key(world: World, client: TestClient, sort: str) -> None:
    every = pages(client, "validators", size=100)
    for order in ("asc", "desc"):
        got = pages(client, "validators", size=4, sortBy=sort, sortOrder=order)
        assert sorted(v["txHash"] for v in got) == sorted(v["txHash"] for v in every)
        values = [_value(v, sort, _now(world.sim)) for v in got]
        assert values == sorted(values, reverse=order == "desc"), sort


def test_the_uptime_ranking_follows_each_staker_snapshot(world: World, client: TestClient) -> None:
    """The API keeps its uptime ranking per P-chain head and staker snapshot: a new snapshot
    (every uptime turned around) reorders the next request's pages; the old one put back
    restores them."""
    from sqlalchemy import select

    from avadata.records.primary import StakerLive
    from avadata.store.primary.snapshots import replace_staker_live
    from avadata.store.schema import primary_staker_live

    def ranked() -> list[tuple[float, str]]:
        got = pages(client, "validators", size=4, sortBy="uptimePerformance")
        return [(_value(v, "uptimePerformance", 0), v["txHash"]) for v in got]

    before = ranked()
    engine = make_engine(client.app.state.avadata.settings.db_url)
    with engine.connect() as conn:
        rows = conn.execute(select(primary_staker_live)).all()
    old = [StakerLive(*r) for r in rows]
    try:
        replace_staker_live(engine, [s._replace(uptime=100.0 - s.uptime) for s in old])
        after = ranked()
        # (active periods the node does not list, subnet validators, stay at 0)
        live = {s.tx_hash for s in old}
        turned = {tx: 100.0 - up if tx in live else up for up, tx in before if up >= 0}
        assert {tx: up for up, tx in after if up >= 0} == turned
        assert after == sorted(after, reverse=True) and after != before
    finally:
        replace_staker_live(engine, old)
        engine.dispose()
    assert ranked() == before


def test_an_active_page_at_a_kept_head_reads_no_delegation(
    world: World, client: TestClient
) -> None:
    """What active periods show of their delegations and subnet stake is kept per P-chain
    head: the same page asked again reads its periods only."""
    q = {"validationStatus": "active", "sortBy": "timeRemaining"}
    first = pages(client, "validators", size=5, **q)
    assert any(v["delegatorCount"] for v in first)
    bound: list[object] = []

    def seen(_conn: Any, _cursor: Any, _sql: str, params: Any, *_: Any) -> None:
        bound.extend(params.values() if isinstance(params, dict) else params)

    # Every engine's: on PostgreSQL the route bodies read through an async engine of their own
    # (store/loop_readers.py).
    event.listen(Engine, "before_cursor_execute", seen)
    try:
        assert pages(client, "validators", size=5, **q) == first
    finally:
        event.remove(Engine, "before_cursor_execute", seen)
    assert bound and "delegator" not in bound


def test_validator_filters_equal_a_second_computation(world: World, client: TestClient) -> None:
    now = _now(world.sim)
    every = pages(client, "validators", size=100)

    def check(expect: Any, **q: Any) -> None:
        got = pages(client, "validators", size=5, **q)
        want = [v for v in every if expect(v)]
        assert [v["txHash"] for v in got] == [v["txHash"] for v in want], q

    for status in ("active", "pending", "completed", "removed"):
        check(lambda v, s=status: v["validationStatus"] == s, validationStatus=status)
    subnets = {v["subnetId"] for v in every}
    assert len(subnets) > 1
    for subnet in subnets:
        check(lambda v, s=subnet: v["subnetId"] == s, subnetId=subnet)
    nodes = sorted({v["nodeId"] for v in every})
    part = nodes[0][7:12]
    check(lambda v: part.lower() in v["nodeId"].lower(), nodeIds=part.swapcase())
    check(
        lambda v: part.lower() in v["nodeId"].lower() or v["nodeId"] == nodes[1],
        nodeIds=f"{part},{nodes[1]}",
    )
    check(
        lambda v: v["nodeId"] in (nodes[0], nodes[1]),
        nodeIds=f"{nodes[0]},{nodes[1]}",
    )
    left = sorted(max(0, v["endTimestamp"] - now) for v in every)
    mid = left[len(left) // 2]
    check(lambda v: max(0, v["endTimestamp"] - now) >= mid, minTimeRemaining=mid)
    check(lambda v: max(0, v["endTimestamp"] - now) <= mid, maxTimeRemaining=mid)
    fees = sorted(float(v["delegationFee"]) for v in every if "delegationFee" in v)
    low = fees[len(fees) // 2]
    check(lambda v: "delegationFee" in v and float(v["delegationFee"]) >= low, minFeePercentage=low)
    check(lambda v: "delegationFee" in v and float(v["delegationFee"]) <= low, maxFeePercentage=low)
    active = [v for v in every if v["validationStatus"] == "active"]
    ups = sorted({v["uptimePerformance"] for v in active})
    check(
        lambda v: v["validationStatus"] == "active" and v["uptimePerformance"] >= ups[-1],
        minUptimePerformance=ups[-1],
    )
    check(
        lambda v: v["validationStatus"] == "active" and v["uptimePerformance"] <= ups[0],
        maxUptimePerformance=ups[0],
    )
    caps = sorted(int(v["delegationCapacity"]) for v in active if "delegationCapacity" in v)
    cap = caps[len(caps) // 2]
    check(
        lambda v: "delegationCapacity" in v and int(v["delegationCapacity"]) >= cap,
        minDelegationCapacity=str(cap),
    )
    check(
        lambda v: "delegationCapacity" in v and int(v["delegationCapacity"]) <= cap,
        maxDelegationCapacity=str(cap),
    )


# -- listDelegators -----------------------------------------------------------------------------


def test_delegators_equal_the_ledger_and_the_nodes_current_ones(
    world: World, client: TestClient
) -> None:
    sim, state = world.sim, world.sim.p.state
    every = pages(client, "delegators", size=7)
    kinds = ("AddDelegatorTx", "AddPermissionlessDelegatorTx")
    ledger = {r.tx_id for r in sim.records if r.chain == "P" and r.type in kinds}
    assert {d["txHash"] for d in every} == ledger and len(every) == len(ledger)
    current: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    for v in world.platform("getCurrentValidators")["validators"]:
        for d in v["delegators"]:
            current[d["txID"]] = (d, v)
    seen = {"active": 0, "completed": 0}
    for d in every:
        staker = state.stakers.get(_raw(d["txHash"]))
        if d["delegationStatus"] in ("active", "pending"):
            node, validator = current[d["txHash"]]
            assert d["amountDelegated"] == node["weight"]
            assert d["estimatedGrossReward"] == node["potentialReward"]
            shares = round(float(validator["delegationFee"]) * 10_000)
            gross = int(node["potentialReward"])
            assert int(d["estimatedNetReward"]) == (1_000_000 - shares) * gross // 1_000_000
            assert d["delegationFee"] == validator["delegationFee"]
        else:
            assert staker is None and d["txHash"] not in current
            paid = sum(a for _, a, _ in state.reward_utxos.get(_raw(d["txHash"]), []))
            assert int(d["netReward"]) == paid
            assert int(d["grossReward"]) >= paid
        seen[d["delegationStatus"]] = seen.get(d["delegationStatus"], 0) + 1
    assert seen["active"] and seen["completed"]
    # filters: status, node, reward address
    for status in ("active", "pending", "completed"):
        got = pages(client, "delegators", delegationStatus=status)
        assert got == [d for d in every if d["delegationStatus"] == status]
    node_id = every[0]["nodeId"]
    assert pages(client, "delegators", nodeIds=node_id) == [
        d for d in every if d["nodeId"] == node_id
    ]
    owner = every[-1]["rewardAddresses"][0]
    assert pages(client, "delegators", rewardAddresses=owner) == [
        d for d in every if owner in d["rewardAddresses"]
    ]
    assert pages(client, "delegators", sortOrder="asc", size=100) == every[::-1]


def _raw(cb58: str) -> bytes:
    from avadata.decode.codec.ids import cb58_decode

    return cb58_decode(cb58)


# -- listL1Validators ---------------------------------------------------------------------------


def test_l1_validators_equal_the_nodes_answers(world: World, client: TestClient) -> None:
    state = world.sim.p.state
    now = _now(world.sim)
    every = pages(client, "l1Validators", size=2, includeInactiveL1Validators="true")
    ids = {cb58_encode(k) for k in (*state.l1_validators, *state.removed_l1_validators)}
    assert {v["validationId"] for v in every} == ids
    created = [v["creationTimestamp"] for v in every]
    assert created == sorted(created, reverse=True)
    paying = []
    for v in every:
        assert v["validationIdHex"] == "0x" + _raw(v["validationId"]).hex()
        raw = _raw(v["validationId"])
        if raw in state.removed_l1_validators:
            assert v["weight"] == 0 and v["feeRatePerSecond"] == 0
            continue
        node = world.platform("getL1Validator", validationID=v["validationId"])
        assert (v["nodeId"], v["subnetId"]) == (node["nodeID"], node["subnetID"])
        assert v["weight"] == int(node["weight"])
        assert v["creationTimestamp"] == int(node["startTime"])
        assert v["blsCredentials"]["publicKey"] == node["publicKey"]
        for mine, theirs in (
            (v["remainingBalanceOwner"], node["remainingBalanceOwner"]),
            (v["deactivationOwner"], node["deactivationOwner"]),
        ):
            assert mine["threshold"] == int(theirs["threshold"])
            assert mine["addresses"] == theirs["addresses"]
        # the store's head is the node's last accepted block: one second's fee apart at most
        assert abs(v["remainingBalance"] - int(node["balance"])) <= 512, v
        if int(node["balance"]) >= 512:
            paying.append(v)
            assert v["feeRatePerSecond"] == 512
            assert v["predictedDeactivationTimestamp"] == now + v["remainingBalance"] // 512
            assert v["predictedDeactivationHeight"] > state.height
        else:
            assert v["feeRatePerSecond"] == 0 and v["predictedDeactivationTimestamp"] is None
    assert paying and len(paying) < len(every)
    active = pages(client, "l1Validators", size=2)
    assert [v["validationId"] for v in active] == [v["validationId"] for v in paying]
    r = client.get(f"{NET}/l1Validators").json()
    assert r["blockHeight"] == str(state.height)
    one = paying[0]
    for param, value in (
        ("l1ValidationId", one["validationId"]),
        ("nodeId", one["nodeId"]),
        ("subnetId", one["subnetId"]),
    ):
        key = {"l1ValidationId": "validationId"}.get(param, param)
        assert pages(client, "l1Validators", **{param: value}) == [
            v for v in paying if v[key] == value
        ]


# -- rewards ------------------------------------------------------------------------------------


def _owner_addresses(owner: Any) -> list[str]:
    return [bech32_address(a, "fuji") for a in owner.addresses]


def test_pending_rewards_of_each_owner_and_node(world: World, client: TestClient) -> None:
    state = world.sim.p.state
    now = _now(world.sim)
    stakers = [
        s
        for s in state.stakers.values()
        if s.kind in ("validator", "delegator") and s.subnet_id == bytes(32)
    ]
    owners = {a for s in stakers for a in _owner_addresses(s.rewards_owner)}
    assert owners
    listed = 0
    for address in sorted(owners):
        got = pages(client, "rewards:listPending", addresses="P-" + address)
        want = {
            cb58_encode(s.tx_id) for s in stakers if address in _owner_addresses(s.rewards_owner)
        }
        assert {p["txHash"] for p in got} == want, address
        listed += len(got)
        for p in got:
            s = state.stakers[_raw(p["txHash"])]
            assert p["rewardType"] == s.kind.upper()
            assert (p["startTimestamp"], p["endTimestamp"]) == (s.start, s.end)
            assert p["progress"] == pytest.approx(
                100 * min(max(now - s.start, 0), s.end - s.start) / (s.end - s.start)
            )
            amount = int(p["estimatedReward"]["amount"])
            if s.kind == "validator":
                assert amount == s.potential_reward
            else:
                shares = state.validator_of(s.node_id, bytes(32)).shares  # type: ignore[union-attr]
                assert amount == (1_000_000 - shares) * s.potential_reward // 1_000_000
            assert p["estimatedReward"]["symbol"] == "AVAX"
    assert listed >= len(stakers)
    node = node_id_str(stakers[0].node_id)
    by_node = pages(client, "rewards:listPending", nodeIds=node)
    assert {p["txHash"] for p in by_node} == {
        cb58_encode(s.tx_id) for s in stakers if node_id_str(s.node_id) == node
    }


def test_historical_rewards_are_the_reward_utxos(world: World, client: TestClient) -> None:
    state = world.sim.p.state
    nodes = ",".join(sorted({node_id_str(n.node_id) for n in world.sim.keys.nodes}))
    got = pages(client, "rewards", size=4, nodeIds=nodes, currency="usd")
    want = {
        (cb58_encode(tx), index, amount)
        for tx, paid in state.reward_utxos.items()
        for index, amount, _ in paid
    }
    assert want
    assert {(r["txHash"], r["outputIndex"], int(r["reward"]["amount"])) for r in got} == want
    times = [r["utxoId"] for r in got]
    assert len(times) == len(set(times))
    assert pages(client, "rewards", size=100, nodeIds=nodes, sortOrder="asc") == got[::-1]
    for r in got:
        staker_owner = r["addresses"]
        assert staker_owner and r["rewardType"] in ("VALIDATOR", "DELEGATOR", "VALIDATOR_FEE")
    first = got[0]["addresses"][0]
    mine = pages(client, "rewards", addresses=first)
    assert mine and {r["txHash"] for r in mine} <= {r["txHash"] for r in got}
    # both sent: both hold (the owner's rewards of that node)
    node = mine[-1]["nodeId"]
    both = pages(client, "rewards", size=2, addresses=first, nodeIds=node)
    assert both == [r for r in mine if r["nodeId"] == node]


def test_a_rewards_page_leaves_no_reference_cycles(world: World, client: TestClient) -> None:
    """The page's statement is built once per shape: one built per request left hundreds of
    reference cycles, and the collector's passes over them were the route's p99."""
    nodes = tuple(sorted({node_id_str(n.node_id) for n in world.sim.keys.nodes}))
    f = stakers.PeriodFilter(kinds=("validator", "delegator"), node_ids=nodes)
    engine = client.app.state.avadata.engine
    with engine.connect() as conn:
        first = stakers.reward_utxos(conn, f, None, 3, desc=True)
        after = (int(first[-1].rewarded_at), str(first[-1].utxo_id))
        # Both shapes compiled once on this engine before counting (a first compile makes
        # cycles of its own; on PostgreSQL the API's requests ran on an engine of their own).
        stakers.reward_utxos(conn, f, after, 3, desc=True)
        gc.collect(0)  # the loop's objects alone are young: the collector is off
        gc.disable()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            for position in (None, after, None, after):
                assert stakers.reward_utxos(conn, f, position, 3, desc=True)
            gc.collect(0)
            assert gc.garbage == []
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()


# -- errors, engines, the SDK -------------------------------------------------------------------


@pytest.mark.parametrize(
    "route,query,param",
    [
        ("validators", {"nodeIds": "NodeID-%%"}, "nodeIds"),
        ("validators", {"subnetId": "xyz"}, "subnetId"),
        ("validators", {"validationStatus": "gone"}, "validationStatus"),
        ("validators", {"sortBy": "height"}, "sortBy"),
        ("validators", {"minDelegationCapacity": "-1"}, "minDelegationCapacity"),
        ("validators", {"maxDelegationCapacity": "1e9"}, "maxDelegationCapacity"),
        ("validators", {"minTimeRemaining": "10", "maxTimeRemaining": "5"}, "minTimeRemaining"),
        ("validators", {"minFeePercentage": "1"}, "minFeePercentage"),
        ("validators", {"maxUptimePerformance": "101"}, "maxUptimePerformance"),
        ("delegators", {"nodeIds": "NodeID-abc"}, "nodeIds"),
        ("delegators", {"rewardAddresses": "P-avax1xyz"}, "rewardAddresses"),
        ("delegators", {"delegationStatus": "removed"}, "delegationStatus"),
        ("l1Validators", {"l1ValidationId": "abc"}, "l1ValidationId"),
        ("l1Validators", {"nodeId": "NodeID-1"}, "nodeId"),
        ("l1Validators", {"includeInactiveL1Validators": "maybe"}, "includeInactiveL1Validators"),
        ("rewards:listPending", {}, "addresses"),
        ("rewards", {"addresses": "fuji1qqq"}, "addresses"),
        (
            "rewards",
            {"nodeIds": "NodeID-111111111111111111116DBWJs", "currency": "xyz"},
            "currency",
        ),
    ],
)
def test_bad_parameters_are_400s_naming_them(
    world: World, route: str, query: dict[str, str], param: str
) -> None:
    r = world.clients["sqlite"].get(f"{NET}/{route}", params=query)
    assert r.status_code == 400, r.text
    assert param in r.json()["message"]


def test_unknown_network_and_page_tokens(world: World) -> None:
    c = world.clients["sqlite"]
    for route in SCHEMAS:
        assert c.get(f"/v1/networks/moon/{route}").status_code == 400
        assert c.get(f"/v1/networks/mainnet/{route}").status_code == 404
    token = c.get(f"{NET}/validators", params={"pageSize": 1}).json()["nextPageToken"]
    r = c.get(f"{NET}/validators", params={"pageToken": token, "sortBy": "timeRemaining"})
    assert r.status_code == 400 and "pageToken" in r.json()["message"]


def test_both_engines_serve_the_same_pages(world: World) -> None:
    nodes = ",".join(sorted({node_id_str(n.node_id) for n in world.sim.keys.nodes}))
    cases: list[tuple[str, dict[str, Any]]] = [
        ("validators", {}),
        ("validators", {"sortBy": "delegationCapacity"}),
        ("validators", {"sortBy": "uptimePerformance", "sortOrder": "asc"}),
        ("delegators", {}),
        ("l1Validators", {"includeInactiveL1Validators": "true"}),
        ("rewards:listPending", {"nodeIds": nodes}),
        ("rewards", {"nodeIds": nodes}),
    ]
    lite, pg = world.clients["sqlite"], world.clients["postgres"]
    for route, q in cases:
        assert pages(lite, route, **q) == pages(pg, route, **q), (route, q)


def test_the_official_sdk_parses_every_list(world: World, tmp_path: Path) -> None:
    c = world.clients["sqlite"]
    nodes = ",".join(sorted({node_id_str(n.node_id) for n in world.sim.keys.nodes}))
    calls = [
        ("listValidators", "validators", {}),
        (
            "listValidators",
            "validators",
            {"sortBy": "delegationCapacity", "validationStatus": "active"},
        ),
        ("listDelegators", "delegators", {}),
        ("listL1Validators", "l1Validators", {"includeInactiveL1Validators": True}),
        ("listPendingRewards", "rewards:listPending", {"nodeIds": nodes}),
        ("listHistoricalRewards", "rewards", {"nodeIds": nodes}),
    ]
    ids = {"l1Validators": "validationId", "rewards": "utxoId"}
    request = [{"name": n, "request": {"network": "fuji", "pageSize": 3, **q}} for n, _, q in calls]
    with serving(c.app) as base:
        out, stderr = run_node(
            SDK_SCRIPT, base, json.dumps({"toolsDir": str(TOOLS), "calls": request})
        )
    assert out["_returncode"] == 0 and out["ok"], (out, stderr)
    for (_, route, q), seen in zip(calls, out["calls"], strict=True):
        query = {k: str(v).lower() if isinstance(v, bool) else v for k, v in q.items()}
        served = [i[ids.get(route, "txHash")] for i in pages(c, route, **query)]
        assert seen["ids"] == served and served, route
