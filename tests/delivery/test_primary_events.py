"""primary_network_address_activity and validator_activity webhooks, end to end on a store the
real indexer filled from the devnet's simulated primary network (our Index API in front of
the simulator): created through the API, delivered by the worker to a real HTTP receiver,
signed (checked by the second implementation in tests/e2e), in chain order, once each.

Truth: the simulator's own ledger (tests/primary/test_address_links.py): which txs spent or
created coins of an address and by how much, and the unsigned txs it signed (the node each
staking tx names, the staker each reward tx ends)."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from avadata.decode.codec.ids import bech32_address, cb58_encode, node_id_str
from avadata.delivery.worker import DeliveryWorker
from avadata.settings import Settings
from avadata.store.engine import make_engine
from avadata.store.keys import create_key
from tests.api.http import TestClient
from tests.e2e.test_webhook_delivery import verify
from tests.primary import test_address_links as links
from tests.primary.test_address_links import World, expected
from tests.support.receiver import Arrival, receiving

# The simulated network indexed, its ledger recorded (a module fixture of its own here).
world = links.world
ORDER = ("P", "X", "C")
PRIMARY = "primary_network_address_activity"
STAKERS = (
    "AddValidatorTx",
    "AddDelegatorTx",
    "AddPermissionlessValidatorTx",
    "AddPermissionlessDelegatorTx",
    "AddSubnetValidatorTx",
)
SUB_EVENT = {
    "AddValidatorTx": "validator_stake",
    "AddPermissionlessValidatorTx": "validator_stake",
    "AddSubnetValidatorTx": "validator_stake",
    "AddDelegatorTx": "delegator_stake",
    "AddPermissionlessDelegatorTx": "delegator_stake",
    "RewardValidatorTx": "reward_distribution",
    "RemoveSubnetValidatorTx": "validator_removed",
}


@pytest.fixture
def hooks(world: World) -> Iterator[tuple[TestClient, dict[str, str], str, Any]]:
    """The world's P-X-C store, an API key, a receiver and a delivery worker on the store."""
    url = world.urls[ORDER]
    writer = make_engine(url)
    key, _ = create_key(writer, "hooks", None)
    settings = Settings(
        db_url=url,
        webhook_retry_base_s=0.01,
        webhook_retry_max_s=0.05,
        webhook_poll_s=0.02,
        webhook_timeout_s=5,
    )
    worker = DeliveryWorker(make_engine(url, read_only=True), writer, settings)
    with receiving(lambda n, _m: 503 if n % 9 == 4 else 200) as (rec, hook_url):
        worker.start()
        try:
            yield world.clients[ORDER], {"x-glacier-api-key": key}, hook_url, rec
        finally:
            worker.stop()
            writer.dispose()


def _create(c: TestClient, headers: dict[str, str], body: dict[str, Any]) -> str:
    made = c.post("/v1/webhooks", json=body, headers=headers)
    assert made.status_code == 201, made.text
    answer = made.json()
    assert answer["metadata"] == body["metadata"] and answer["eventType"] == body["eventType"]
    wid = str(answer["id"])
    r = c.post(f"/v1/webhooks/{wid}/rewind", json={"blockNumber": 0}, headers=headers)
    assert r.status_code == 200, r.text
    return wid


def _mine(rec: Any, wid: str) -> list[Arrival]:
    return [a for a in rec.arrivals() if a.message["webhookId"] == wid]


def _wait_for(rec: Any, wid: str, want: set[str], timeout: float = 60) -> list[Arrival]:
    deadline = time.monotonic() + timeout
    while {a.tx_hash for a in _mine(rec, wid)} < want:
        assert time.monotonic() < deadline, (
            f"missing {len(want - {a.tx_hash for a in _mine(rec, wid)})}"
        )
        time.sleep(0.05)
    time.sleep(0.5)  # nothing else may come
    return _mine(rec, wid)


def _check_envelope(got: list[Arrival], wid: str, kind: str, secret: str) -> None:
    """Once each, in chain order, under stable ids, signed."""
    counts = Counter(a.tx_hash for a in got)
    assert max(counts.values()) == 1, counts.most_common(3)
    positions = [
        (
            int(a.message["event"]["transaction"]["blockNumber"]),
            a.message["event"]["transaction"]["txIndex"],
        )
        for a in got
    ]
    assert positions == sorted(positions)
    assert len({a.message["messageId"] for a in got}) == len(got)
    for a in got:
        assert a.message["webhookId"] == wid and a.message["eventType"] == kind
        verify(secret, a.raw, a.headers)


def _changes(world: World, tx: str, watched: set[str]) -> dict[str, int] | None:
    """The watched addresses' combined change per asset; None when the tx spent a genesis
    coin of theirs (no index holds the genesis: the store cannot know its amount)."""
    out: dict[str, int] = {}
    for owners, asset, amount, made_by in world.ledger.flows.get(tx, ()):
        if watched & set(owners):
            if amount < 0 and made_by not in world.ledger.unsigned:
                return None
            out[asset] = out.get(asset, 0) + amount
    return out


@pytest.mark.parametrize("chain", ["P", "X", "C"])
def test_address_activity_matches_the_ledger(world: World, hooks: Any, chain: str) -> None:
    c, headers, hook_url, rec = hooks
    users = world.sim.keys.users
    # Atomic txs are few: on the C-chain every user is watched.
    watched = {bech32_address(u.address, "fuji") for u in users[: 3 if chain != "C" else None]}
    want: set[str] = set()
    for a in watched:
        want |= expected(world, chain, a)
    # The X-chain's DAG-era vertices are not reported (their txs have no place in the blocks'
    # order): the simulator's records say which txs a vertex carried.
    want -= {r.tx_id for r in world.sim.records if r.index == "X/vtx"}
    assert len(want) >= (10 if chain != "C" else 4), len(want)
    body = {
        "eventType": "primary_network_address_activity",
        "url": hook_url,
        "network": "fuji",
        "chainId": f"{chain.lower()}-chain",
        "metadata": {
            "keyType": "addresses",
            "keys": sorted(f"{chain}-{a}" for a in watched),
            "subEvents": {"addressActivitySubEvents": ["balance_change", "reward_distribution"]},
        },
    }
    wid = _create(c, headers, body)
    got = _wait_for(rec, wid, want)
    assert {a.tx_hash for a in got} == want
    secret = c.get("/v1/webhooks:getSharedSecret", headers=headers).json()["secret"]
    _check_envelope(got, wid, "primary_network_address_activity", secret)
    records = {r.tx_id: r for r in world.sim.records}
    checked = 0
    for a in got:
        event = a.message["event"]
        tx = event["transaction"]
        assert tx["chainId"] == f"{chain.lower()}-chain" and tx["txType"] == records[a.tx_hash].type
        assert event["eventType"] == (
            "reward_distribution" if tx["txType"] == "RewardValidatorTx" else "balance_change"
        )
        unsigned = world.ledger.unsigned.get(a.tx_hash)
        if unsigned is None or getattr(unsigned, "stake_outputs", None):
            continue  # stake comes back later under the staking tx's ID: not this tx's flow
        truth = _changes(world, a.tx_hash, watched)
        if truth is None:
            continue
        assert {b["assetId"]: int(b["amount"]) for b in event["balanceChanges"]} == truth
        assert set(event["addresses"]) <= watched and event["addresses"]
        checked += 1
    assert checked >= 5


def _staker_nodes(world: World) -> dict[str, set[str]]:
    """Per P-chain tx the node IDs it concerns, from the unsigned txs the simulator signed."""
    nodes: dict[str, set[str]] = {}
    staking: dict[str, str] = {}
    for tx, unsigned in world.ledger.unsigned.items():
        kind = type(unsigned).__name__
        if kind in STAKERS:
            staking[tx] = node_id_str(unsigned.validator.node_id)
            nodes[tx] = {staking[tx]}
        elif kind == "RemoveSubnetValidatorTx":
            nodes[tx] = {node_id_str(unsigned.node_id)}
    for tx, unsigned in world.ledger.unsigned.items():
        if type(unsigned).__name__ == "RewardValidatorTx":
            nodes[tx] = {staking[cb58_encode(unsigned.tx_id)]}
    return nodes


def _kind(world: World, tx: str) -> str:
    return type(world.ledger.unsigned[tx]).__name__


def _l1_nodes(world: World) -> set[str]:
    """The nodes that were L1 validators at some time (their L1 txs are events too; the test
    watches a node without them): a ConvertSubnetToL1Tx's, or one whose node ID a
    RegisterL1ValidatorTx's signed message carries."""
    out: set[bytes] = set()
    for unsigned in world.ledger.unsigned.values():
        kind = type(unsigned).__name__
        if kind == "ConvertSubnetToL1Tx":
            out |= {bytes(v.node_id) for v in unsigned.validators}
        elif kind == "RegisterL1ValidatorTx":
            out |= {n.node_id for n in world.sim.keys.nodes if n.node_id in unsigned.message}
    return {node_id_str(n) for n in out}


def _node_hook(url: str, node: str, subs: list[str], **more: str) -> dict[str, Any]:
    """A validator_activity creation request watching `node` for `subs`."""
    meta = {"keyType": "nodeId", "keys": [node], "subEvents": {"validatorActivitySubEvents": subs}}
    return {
        "eventType": "validator_activity",
        "url": url,
        "network": "fuji",
        "metadata": {**meta, **more},
    }


def _watched_node(world: World) -> tuple[str, set[str]]:
    """A rewarded staker's node that never was an L1 validator, and the txs that concern it."""
    nodes = _staker_nodes(world)
    l1 = _l1_nodes(world)
    by_node = Counter(n for ns in nodes.values() for n in ns if n not in l1)
    rewarded = {
        n
        for t, ns in nodes.items()
        for n in ns
        if t in world.ledger.unsigned and _kind(world, t) == "RewardValidatorTx"
    }
    node = next(n for n, _ in by_node.most_common() if n in rewarded)
    return node, {tx for tx, ns in nodes.items() if node in ns}


def test_validator_activity_matches_the_signed_txs(world: World, hooks: Any) -> None:
    c, headers, hook_url, rec = hooks
    node, want = _watched_node(world)
    kinds = {type(world.ledger.unsigned[t]).__name__ for t in want}
    assert len(want) >= 4 and "RewardValidatorTx" in kinds, kinds
    subs = ["validator_stake", "delegator_stake", "reward_distribution", "validator_removed"]
    body = _node_hook(hook_url, node, subs)
    wid = _create(c, headers, body)
    got = _wait_for(rec, wid, want)
    assert {a.tx_hash for a in got} == want
    secret = c.get("/v1/webhooks:getSharedSecret", headers=headers).json()["secret"]
    _check_envelope(got, wid, "validator_activity", secret)
    for a in got:
        event = a.message["event"]
        kind = type(world.ledger.unsigned[a.tx_hash]).__name__
        assert event["eventType"] == SUB_EVENT[kind] and node in event["nodeIds"]
        if kind == "RewardValidatorTx":
            staked = cb58_encode(world.ledger.unsigned[a.tx_hash].tx_id)
            assert [r["stakingTxHash"] for r in event["rewards"]] == [staked]

    # Only the sub-events asked for: stakes alone, on a second webhook.
    body["metadata"]["subEvents"] = {"validatorActivitySubEvents": ["validator_stake"]}
    only = _create(c, headers, body)
    stakes = {
        t for t in want if SUB_EVENT[type(world.ledger.unsigned[t]).__name__] == "validator_stake"
    }
    got = _wait_for(rec, only, stakes)
    assert {a.tx_hash for a in got} == stakes


def test_bad_requests_name_the_field(world: World, hooks: Any) -> None:
    c, headers, hook_url, _rec = hooks
    base = {
        "eventType": "primary_network_address_activity",
        "url": hook_url,
        "network": "fuji",
        "chainId": "p-chain",
        "metadata": {
            "keyType": "addresses",
            "keys": ["P-" + bech32_address(world.sim.keys.users[0].address, "fuji")],
            "subEvents": {"addressActivitySubEvents": ["balance_change"]},
        },
    }
    cases: list[tuple[dict[str, Any], str]] = [
        ({"chainId": "d-chain"}, "chainId"),
        ({"network": "mainnet"}, "network"),
        ({"url": "ftp://x"}, "url"),
        ({"metadata": {**base["metadata"], "keys": ["P-avax1nope"]}}, "metadata.keys"),
        ({"metadata": {**base["metadata"], "keys": []}}, "metadata.keys"),
        (
            {
                "metadata": {
                    **base["metadata"],
                    "subEvents": {"addressActivitySubEvents": ["balance_threshold"]},
                }
            },
            "metadata.subEvents.addressActivitySubEvents[0]",
        ),
        ({"metadata": {**base["metadata"], "keyType": "nodeId"}}, "metadata.keyType"),
    ]
    for change, field in cases:
        r = c.post("/v1/webhooks", json={**base, **change}, headers=headers)
        assert r.status_code in (400, 404), (change, r.text)
        assert field in r.text, (change, r.text)
    validator = {
        "eventType": "validator_activity",
        "url": hook_url,
        "network": "fuji",
        "metadata": {
            "keyType": "nodeId",
            "keys": ["NodeID-xyz"],
            "subEvents": {"validatorActivitySubEvents": ["validator_stake"]},
        },
    }
    r = c.post("/v1/webhooks", json=validator, headers=headers)
    assert r.status_code == 400 and "metadata.keys[0]" in r.text, r.text
    # The address operations are the EVM webhooks' only.
    wid = _create(c, headers, base)
    r = c.get(f"/v1/webhooks/{wid}/addresses", headers=headers)
    assert r.status_code == 400 and "address_activity" in r.text, r.text


def _subnet_txs(world: World, subnet: bytes) -> dict[str, str]:
    """Per P-chain tx touching `subnet`'s validators, its sub-event: from the signed txs and
    the simulator's L1 validator book (each validation's subnet, removed ones too)."""
    state = world.sim.p.state
    book = {**state.l1_validators, **state.removed_l1_validators}
    vids = {vid for vid, v in book.items() if v.subnet_id == subnet}
    out: dict[str, str] = {}
    for tx, unsigned in world.ledger.unsigned.items():
        kind = type(unsigned).__name__
        if kind in ("AddSubnetValidatorTx", "ConvertSubnetToL1Tx") and unsigned.subnet_id == subnet:
            out[tx] = "validator_stake"
        elif kind == "RemoveSubnetValidatorTx" and unsigned.subnet_id == subnet:
            out[tx] = "validator_removed"
        elif kind == "RegisterL1ValidatorTx" and subnet in unsigned.message:
            out[tx] = "validator_stake"
        elif kind == "IncreaseL1ValidatorBalanceTx" and unsigned.validation_id in vids:
            out[tx] = "l1_validator_balance_increased"
        elif kind == "DisableL1ValidatorTx" and unsigned.validation_id in vids:
            out[tx] = "l1_validator_disabled"
        elif kind == "SetL1ValidatorWeightTx" and any(v in unsigned.message for v in vids):
            out[tx] = "l1_validator_*"  # removed or weight changed: the message's weight says
    return out


def test_l1_validator_activity_by_subnet(world: World, hooks: Any) -> None:
    c, headers, hook_url, rec = hooks
    converted = [
        u.subnet_id
        for u in world.ledger.unsigned.values()
        if type(u).__name__ == "ConvertSubnetToL1Tx"
    ]
    assert converted, "the devnet converts its L1 subnets"
    subnet = converted[0]
    want = _subnet_txs(world, subnet)
    kinds = set(want.values())
    assert {"validator_stake", "l1_validator_balance_increased"} <= kinds, kinds
    body = {
        "eventType": "validator_activity",
        "url": hook_url,
        "network": "fuji",
        "metadata": {
            "keyType": "subnetId",
            "keys": [cb58_encode(subnet)],
            "subEvents": {
                "validatorActivitySubEvents": [
                    "validator_stake",
                    "validator_removed",
                    "l1_validator_balance_increased",
                    "l1_validator_disabled",
                    "l1_validator_removed",
                    "l1_validator_weight_changed",
                ]
            },
        },
    }
    wid = _create(c, headers, body)
    got = _wait_for(rec, wid, set(want))
    assert {a.tx_hash for a in got} == set(want)
    for a in got:
        event = a.message["event"]
        assert event["subnetIds"] == [cb58_encode(subnet)]
        if want[a.tx_hash] == "l1_validator_*":
            assert event["eventType"] in ("l1_validator_removed", "l1_validator_weight_changed")
        else:
            assert event["eventType"] == want[a.tx_hash], (a.tx_hash, event["eventType"])
        if event["eventType"].startswith("l1_"):
            assert event["validationIds"]


def _read_stream(
    http: Any, url: str, headers: dict[str, str], count: int, last: str | None
) -> list[tuple[str, bytes]]:
    """The first `count` (id, data) events of the stream at `url`, resumed after `last`."""
    if last is not None:
        headers = {**headers, "Last-Event-ID": last}
    out: list[tuple[str, bytes]] = []
    event_id = ""
    with http.stream("GET", url, headers=headers) as r:
        assert r.status_code == 200, r.read()
        for line in r.iter_lines():
            if line.startswith("id: "):
                event_id = line[4:]
            elif line.startswith("data: "):
                out.append((event_id, line[6:].encode()))
            if len(out) == count and line == "":
                break
    return out


def test_the_stream_of_a_validator_webhook_sends_its_posts_and_resumes(
    world: World, hooks: Any
) -> None:
    """GET /v1/events/stream?webhookId= of a validator_activity webhook: the very bodies the
    worker POSTed, in the same order, each with the P-chain position as its id; a reconnect
    with Last-Event-ID continues after it. An ad hoc filter (nodeIds, subEvents) gives the
    same events; its bad parameters are 400s naming them."""
    import httpx

    from avadata.api.app import create_app
    from tests.support.server import serving

    c, headers, hook_url, rec = hooks
    node, want = _watched_node(world)
    subs = ["validator_stake", "delegator_stake", "reward_distribution", "validator_removed"]
    wid = _create(c, headers, _node_hook(hook_url, node, subs))
    posted = [a.raw for a in _wait_for(rec, wid, want)]
    settings = Settings(db_url=world.urls[ORDER], webhook_poll_s=0.05)
    with serving(create_app(settings)) as base, httpx.Client(timeout=30) as http:
        stream = f"{base}/v1/events/stream?webhookId={wid}&fromBlock=0"
        first = _read_stream(http, stream, headers, 2, None)
        rest = _read_stream(http, stream, headers, len(posted) - 2, first[-1][0])
        assert [d for _, d in first + rest] == posted
        ids = [tuple(map(int, i.split("-"))) for i, _ in first + rest]
        assert ids == sorted(ids) and len(set(ids)) == len(ids)
        query = (
            f"eventType=validator_activity&network=fuji&nodeIds={node}"
            f"&subEvents={','.join(subs)}&fromBlock=0"
        )
        ad_hoc = _read_stream(http, f"{base}/v1/events/stream?{query}", {}, len(posted), None)
        assert [json.loads(d)["event"] for _, d in ad_hoc] == [
            json.loads(p)["event"] for p in posted
        ]
        for bad, name in (
            ("eventType=validator_activity&network=fuji&nodeIds=NodeID-xyz", "nodeIds[0]"),
            ("eventType=validator_activity&nodeIds=" + node, "network"),
            (f"eventType=validator_activity&network=fuji&nodeIds={node}&subEvents=x", "subEvents"),
            (f"eventType={PRIMARY}&network=fuji&chainId=p-chain", "addresses"),
        ):
            r = http.get(f"{base}/v1/events/stream?{bad}")
            assert r.status_code == 400 and name in r.json()["message"], (bad, r.text)


def test_the_stream_of_primary_addresses_ad_hoc(world: World, hooks: Any) -> None:
    """An ad hoc primary_network_address_activity stream (chainId, addresses) gives the txs
    the ledger says touch the addresses, as the webhook messages shape them."""
    import httpx

    from avadata.api.app import create_app
    from tests.support.server import serving

    watched = {bech32_address(u.address, "fuji") for u in world.sim.keys.users[:2]}
    want: set[str] = set()
    for a in watched:
        want |= expected(world, "P", a)
    assert want
    keys = ",".join(sorted(f"P-{a}" for a in watched))
    query = f"eventType={PRIMARY}&network=fuji&chainId=p-chain&addresses={keys}"
    settings = Settings(db_url=world.urls[ORDER], webhook_poll_s=0.05)
    with serving(create_app(settings)) as base, httpx.Client(timeout=30) as http:
        url = f"{base}/v1/events/stream?{query}&fromBlock=0"
        got = _read_stream(http, url, {}, len(want), None)
    messages = [json.loads(d) for _, d in got]
    assert {m["event"]["transaction"]["txHash"] for m in messages} == want
    assert all(m["eventType"] == "primary_network_address_activity" for m in messages)


def _running_down(world: World) -> tuple[Any, int, int, int]:
    """An active L1 validation, a threshold a hundred seconds of fee below its balance as of
    its last top-up, and when and in which block that balance fell below it, by the
    simulator's own fee (its `remaining`, searched second by second) and block times."""
    from avadata.devnet.primary.pchain_state import L1_FEE_PER_SECOND

    state = world.sim.p.state
    last_time = max(t for _, t in state.heights)
    for v in state.l1_validators.values():
        limit = v.balance - 100 * L1_FEE_PER_SECOND
        if v.disabled or limit <= 0:
            continue
        at = v.updated
        while v.remaining(at) >= limit:
            at += 1
        if at <= last_time:
            height = min(h for h, t in state.heights if t >= at)
            return v, limit, at, height
    raise AssertionError("no active L1 validation of the devnet to watch")


def test_l1_balance_threshold_reached(world: World, hooks: Any) -> None:
    """validator_activity with l1_validator_balance_threshold and a threshold: one message
    when the validator's fee balance falls below it, placed at the first P-chain block at or
    after that second; a malformed or missing threshold is a 400 naming it."""
    from avadata.devnet.primary.pchain_state import L1_FEE_PER_SECOND

    c, headers, hook_url, rec = hooks
    v, limit, at, height = _running_down(world)
    node = node_id_str(v.node_id)
    body = _node_hook(
        hook_url,
        node,
        ["l1_validator_balance_threshold"],
        l1ValidatorFeeBalanceThreshold=str(limit),
    )
    wid = _create(c, headers, body)
    vid = cb58_encode(v.validation_id)

    def since_top_up() -> list[Arrival]:
        # Earlier crossings (before the last top-up lifted the balance back) are not checked.
        return [
            a
            for a in _mine(rec, wid)
            if a.message["event"]["validationIds"] == [vid]
            and a.message["event"]["timestamp"] > v.updated
        ]

    deadline = time.monotonic() + 60
    while not since_top_up():
        assert time.monotonic() < deadline, "no threshold message"
        time.sleep(0.05)
    time.sleep(0.5)  # nothing else may come
    got = since_top_up()
    assert len(got) == 1, [a.message for a in got]
    event = got[0].message["event"]
    assert event["eventType"] == "l1_validator_balance_threshold"
    assert event["nodeIds"] == [node] and event["subnetIds"] == [cb58_encode(v.subnet_id)]
    assert (event["timestamp"], event["blockNumber"]) == (at, str(height))
    # The simulator also charges a balance's last part-second (below one second's fee) when
    # it runs out; avalanchego, and the replay, keep it: the two may differ by less than that.
    assert 0 <= int(event["balance"]) - v.remaining(at) < L1_FEE_PER_SECOND
    assert event["threshold"] == str(limit)
    secret = c.get("/v1/webhooks:getSharedSecret", headers=headers).json()["secret"]
    every = _mine(rec, wid)  # earlier crossings too: once each, in order, signed
    assert len({a.message["messageId"] for a in every}) == len(every)
    events = [a.message["event"] for a in every]
    seen = [(int(e["blockNumber"]), e["timestamp"]) for e in events]
    assert seen == sorted(seen)
    for a in every:
        assert a.message["webhookId"] == wid and a.message["eventType"] == "validator_activity"
        verify(secret, a.raw, a.headers)
    meta = body["metadata"]
    for bad in ("12a", "-1", str(2**64), 5):
        r = c.post(
            "/v1/webhooks",
            json={**body, "metadata": {**meta, "l1ValidatorFeeBalanceThreshold": bad}},
            headers=headers,
        )
        assert r.status_code == 400, (bad, r.text)
        assert "metadata.l1ValidatorFeeBalanceThreshold" in r.json()["message"], r.text
    missing = {k: val for k, val in meta.items() if k != "l1ValidatorFeeBalanceThreshold"}
    r = c.post("/v1/webhooks", json={**body, "metadata": missing}, headers=headers)
    assert r.status_code == 400 and "l1ValidatorFeeBalanceThreshold" in r.text, r.text
