"""Staking metrics, validators:getAddresses and the L1 validator fee series over a store the
indexer filled from the devnet's simulated P-chain, checked against the simulator's own state
(stakers and L1 balances at the P-chain's newest time) and a brute-force recomputation here."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select

from avadata.api.app import create_app
from avadata.decode.codec.ids import cb58_encode, node_id_str
from avadata.devnet.primary.node import NodeOptions, PrimaryNode
from avadata.devnet.primary.simulator import PrimaryConfig, PrimarySim
from avadata.metrics import l1_fees
from avadata.records.primary import PRIMARY_SUBNET
from avadata.settings import Settings
from avadata.store.metrics import l1_reads
from avadata.store.primary.queries.validators import p_chain_now
from avadata.store.schema import primary_validations
from tests.api.http import TestClient
from tests.support.primary_world import indexed, served_node

CONFIG = PrimaryConfig(seed=5, start=1_767_225_600, days=30, p_blocks=120, x_blocks=20)
DAY = 86400

World = tuple[TestClient, PrimarySim, Engine]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    folder: Path = tmp_path_factory.mktemp("primary-metrics")
    node = PrimaryNode(NodeOptions(CONFIG, data_dir=folder, live_interval=None))
    node.start()
    with served_node(node) as url:
        engine = indexed(folder / "store.db", url)
        settings = Settings(db_url=str(engine.url), page_token_secret="test-secret-0123456789")
        with TestClient(create_app(settings), raise_server_exceptions=False) as c:
            yield c, node.sim, engine


def _pages(c: TestClient, url: str, key: str, **q: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    token = None
    while True:
        r = c.get(url, params=dict(q, **({"pageToken": token} if token else {})))
        assert r.status_code == 200, r.text
        out += r.json()[key]
        token = r.json().get("nextPageToken")
        if not token:
            return out


def _rows(engine: Engine, subnet: str) -> list[Any]:
    v = primary_validations.c
    with engine.connect() as conn:
        return list(conn.execute(select(primary_validations).where(v.subnet_id == subnet)))


def _brute(rows: list[Any], kind: str, t: int) -> tuple[int, int]:
    """(count, weight) of the periods of `kind` holding instant t, one row at a time."""
    count = weight = 0
    for r in rows:
        end = r.end_ts if r.remove_timestamp is None else min(r.end_ts, r.remove_timestamp)
        if r.kind == kind and r.start_ts <= t < end:
            count += 1
            weight += int(r.amount_staked)
    return count, weight


def test_staking_metrics(world: World) -> None:
    c, sim, engine = world
    with engine.connect() as conn:
        now = p_chain_now(conn)
    assert now is not None
    rows = _rows(engine, PRIMARY_SUBNET)
    live = [
        s
        for s in sim.p.state.stakers.values()
        if cb58_encode(s.subnet_id) == PRIMARY_SUBNET and s.start <= now < s.end
    ]
    for metric, kind in (
        ("validatorCount", "validator"),
        ("validatorWeight", "validator"),
        ("delegatorCount", "delegator"),
        ("delegatorWeight", "delegator"),
    ):
        got = _pages(c, f"/v2/networks/fuji/metrics/{metric}", "results", pageSize=7)
        days = [p["timestamp"] for p in got]
        assert days == list(range(days[0], days[-1] - 1, -DAY)) and len(days) >= 20
        for p in got:
            count, weight = _brute(rows, kind, min(p["timestamp"] + DAY - 1, now))
            assert p["value"] == (weight if metric.endswith("Weight") else count), (metric, p)
        # The newest day closes at the P-chain's newest time: the simulator's live stakers.
        mine = [s for s in live if s.kind == kind]
        want = sum(s.weight for s in mine) if metric.endswith("Weight") else len(mine)
        assert got[0]["value"] == want, metric


def test_staking_bad_input(world: World) -> None:
    c = world[0]
    r = c.get("/v2/networks/fuji/metrics/notAMetric")
    assert r.status_code == 400 and "metric" in r.json()["message"]
    r = c.get("/v2/networks/moon/metrics/validatorCount")
    assert r.status_code == 400 and "network" in r.json()["message"]
    r = c.get("/v2/networks/fuji/metrics/validatorCount", params={"subnetId": "nope"})
    assert r.status_code == 400 and "subnetId" in r.json()["message"]
    unknown = cb58_encode(bytes(range(32)))
    r = c.get("/v2/networks/fuji/metrics/validatorCount", params={"subnetId": unknown})
    assert r.status_code == 404 and unknown in r.json()["message"]
    r = c.get(f"/v2/subnets/{unknown}/validators:getAddresses")
    assert r.status_code == 404 and "subnetId" in r.json()["message"]


def test_validator_addresses_by_date_range(world: World) -> None:
    c, _, engine = world
    rows = [r for r in _rows(engine, PRIMARY_SUBNET) if r.kind == "validator"]
    lo, hi = CONFIG.start + 5 * DAY, CONFIG.start + 12 * DAY
    got = _pages(
        c,
        f"/v2/subnets/{PRIMARY_SUBNET}/validators:getAddresses",
        "addresses",
        startTimestamp=lo,
        endTimestamp=hi,
        pageSize=3,
    )
    want = sorted(
        (r.block_timestamp, r.tx_hash, json.loads(r.reward_addresses))
        for r in rows
        if r.start_ts <= hi
        and (r.end_ts if r.remove_timestamp is None else min(r.end_ts, r.remove_timestamp)) > lo
    )
    assert want
    assert got == [{"addresses": a, "sortKey": str(ts)} for ts, _, a in want]


def test_l1_fee_series_match_the_simulators_balances(world: World) -> None:
    c, sim, engine = world
    state = sim.p.state
    with engine.connect() as conn:
        now = p_chain_now(conn)
        assert now is not None
        found = l1_reads.validations(conn)
        txs = l1_reads.validation_txs(conn)
    assert found, "the simulator made no L1 validator"
    events: dict[str, list[l1_fees.Event]] = {}
    added: dict[str, int] = {}
    for vid, ts, tx_type, body in txs:
        e = l1_fees.events_of(vid, ts, tx_type, json.loads(body))
        events.setdefault(vid, []).append(e)
        added[vid] = added.get(vid, 0) + e.added
    sim_l1 = {
        cb58_encode(k): v for k, v in {**state.removed_l1_validators, **state.l1_validators}.items()
    }
    total = 0
    for vid, _, node in found:
        sim_v = sim_l1[vid]
        replay = l1_fees.replay(events[vid], now)
        # The simulator charges the last part-second too; avalanchego (and we) whole seconds.
        assert abs(replay.balance - sim_v.remaining(now)) < l1_fees.FEE_PER_SECOND, vid
        series = c.get(f"/v2/validation/{vid}/metrics/validationCumulativeFeesDaily").json()
        paid = series["results"][0]["value"]
        assert paid == sum(b - a for a, b in replay.spans) * l1_fees.FEE_PER_SECOND
        daily = c.get(f"/v2/validation/{vid}/metrics/validationFeesDaily").json()["results"]
        assert sum(p["value"] for p in daily) == paid
        total += paid
        by_node = c.get(f"/v2/validator/{node}/metrics/perNodeCumulativeFeesPaid")
        assert by_node.status_code == 200 and by_node.json()["results"][0]["value"] >= paid
        assert paid <= added[vid]
    whole = c.get("/v2/validators/metrics/totalCumulativeFeesDaily").json()["results"]
    assert whole[0]["value"] == total
    print(
        len(found),
        total,
        [(r.spans, r.balance) for r in map(lambda v: l1_fees.replay(events[v], now), events)][:3],
    )
    assert total > 0


def test_l1_bad_input(world: World) -> None:
    c = world[0]
    unknown = cb58_encode(bytes(range(32)))
    cases = {
        "/v2/validators/metrics/nope": (400, "metric"),
        "/v2/validation/xyz/metrics/validationFeesDaily": (400, "l1ValidationId"),
        f"/v2/validation/{unknown}/metrics/validationFeesDaily": (404, unknown),
        "/v2/validator/NodeID-zzz/metrics/perNodeDailyFeesPaid": (400, "nodeId"),
        f"/v2/validator/{node_id_str(bytes(20))}/metrics/perNodeDailyFeesPaid": (404, "nodeId"),
        f"/v2/subnet/{unknown}/metrics/perSubnetDailyFeesPaid": (404, unknown),
        f"/v2/subnet/{unknown}/metrics/nope": (400, "metric"),
    }
    for url, (status, word) in cases.items():
        r = c.get(url)
        assert r.status_code == status and word in r.json()["message"], (url, r.text)
        assert set(r.json()) == {"message", "error", "statusCode"}
