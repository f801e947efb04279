"""The staking and L1 fee series rolled up while indexing the P-chain equal what the API computed
per request before the rollup (written out again here: a staking timeline over every validation
period, every L1 validation's fee replay), on SQLite and PostgreSQL, for the store the indexer
filled batch by batch and after `metrics rebuild`; the rebuild reproduces the rollup's tables
row for row. The runway series equals the replay's runway at each day's end."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select

from avadata.api.app import create_app
from avadata.devnet.primary.node import NodeOptions, PrimaryNode
from avadata.indexer.primary.run import index_node
from avadata.metrics import l1_fees, staking
from avadata.metrics.staking import NetworkMetric
from avadata.settings import Settings
from avadata.store.engine import make_engine
from avadata.store.metrics import l1_reads, staking_reads
from avadata.store.metrics.rebuild import rebuild
from avadata.store.primary.queries.validators import p_chain_now
from avadata.store.schema import (
    metric_l1_accounts,
    metric_l1_fee_days,
    metric_p_clock,
    metric_staking_days,
    metric_staking_marks,
    primary_validations,
)
from tests.api.http import TestClient
from tests.metrics.test_primary_metrics import CONFIG
from tests.support.primary_world import served_node

DAY = 86400
P_TABLES = (
    metric_p_clock,
    metric_staking_marks,
    metric_staking_days,
    metric_l1_accounts,
    metric_l1_fee_days,
)


@pytest.fixture(scope="module")
def node_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder: Path = tmp_path_factory.mktemp("pchain-rollup")
    node = PrimaryNode(NodeOptions(CONFIG, data_dir=folder, live_interval=None))
    node.start()
    with served_node(node) as url:
        yield url


def _tables(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    with engine.connect() as conn:
        return {t.name: sorted(tuple(r) for r in conn.execute(select(t))) for t in P_TABLES}


# --- the per-request computation the API made before the rollup ---------------------------


def _staking_want(conn: Any, subnet: str, metric: NetworkMetric, now: int) -> list[dict]:
    timeline = staking.Timeline(staking_reads.periods(conn, subnet, metric.delegators))
    if timeline.first is None:
        return []
    first, last = timeline.first - timeline.first % DAY, now - now % DAY
    return [
        {"value": staking.value(timeline, metric, d, now), "timestamp": d}
        for d in range(last, first - 1, -DAY)
    ]


class Book:
    def __init__(self, conn: Any, now: int) -> None:
        self.now = now
        self.validations = l1_reads.validations(conn)
        self.events: dict[str, list[l1_fees.Event]] = {}
        for vid, ts, tx_type, body in l1_reads.validation_txs(conn):
            e = l1_fees.events_of(vid, ts, tx_type, json.loads(body))
            self.events.setdefault(vid, []).append(e)

    def series(self, kind: str, column: int | None, value: str | None) -> list[dict]:
        ids = [v[0] for v in self.validations if column is None or v[column] == value]
        ids = [i for i in ids if i in self.events]
        if not ids:
            return []
        first = min(self.events[i][0].timestamp for i in ids)
        first, last = first - first % DAY, self.now - self.now % DAY
        replays = [l1_fees.replay(self.events[i], self.now) for i in ids]
        points = l1_fees.series(replays, first, last, kind)
        return [{"value": v, "timestamp": d} for d, v in points]

    def balances(self, vid: str, runway: bool) -> list[dict]:
        """Balance (or seconds left) at each day's end, the newest day's at `now`."""
        events = self.events[vid]
        first, last = events[0].timestamp - events[0].timestamp % DAY, self.now - self.now % DAY
        out = []
        for d in range(last, first - 1, -DAY):
            at = self.now if d == last else d + DAY
            r = l1_fees.replay([e for e in events if e.timestamp < at or d == last], at)
            left = 0 if r.deactivates_at is None else r.deactivates_at - at
            out.append({"value": left if runway else r.balance, "timestamp": d})
        return out


def _pages(c: TestClient, url: str, subnet: str) -> list[dict]:
    out: list[dict] = []
    token = None
    while True:
        q = {"pageSize": 9, "subnetId": subnet, **({"pageToken": token} if token else {})}
        r = c.get(url, params=q)
        assert r.status_code == 200, r.text
        out += r.json()["results"]
        token = r.json().get("nextPageToken")
        if not token:
            return out


def _check_api(engine: Engine) -> int:
    """Every staking and L1 series the API serves equals the per-request computation; returns
    how many points were compared."""
    settings = Settings(db_url=str(engine.url), page_token_secret="test-secret-0123456789")
    compared = 0
    # The test's reads go through a read-only engine: a writer's connection would hold
    # SQLite's write lock, which the API's page tokens need.
    reader = make_engine(str(engine.url), read_only=True)
    with reader.connect() as conn, TestClient(create_app(settings)) as c:
        now = p_chain_now(conn)
        assert now is not None
        subnets = sorted(set(conn.execute(select(primary_validations.c.subnet_id)).scalars()))
        for subnet in subnets:
            for metric in NetworkMetric:
                got = _pages(c, f"/v2/networks/fuji/metrics/{metric}", subnet)
                assert got == _staking_want(conn, subnet, metric, now), (subnet, metric)
                compared += len(got)
        book = Book(conn, now)
        assert book.validations and book.events
        routes: list[tuple[str, dict[str, str], int | None, str | None]] = [
            ("/v2/validators/metrics", l1_fees.TOTAL_METRICS, None, None)
        ]
        for vid, subnet, node in book.validations:
            routes += [
                (f"/v2/validation/{vid}/metrics", l1_fees.VALIDATION_METRICS, 0, vid),
                (f"/v2/validator/{node}/metrics", l1_fees.NODE_METRICS, 2, node),
                (f"/v2/subnet/{subnet}/metrics", l1_fees.SUBNET_METRICS, 1, subnet),
            ]
        for path, metrics, column, value in routes:
            for name, kind in metrics.items():
                r = c.get(f"{path}/{name}")
                assert r.status_code == 200, r.text
                if kind in (l1_fees.BALANCE, l1_fees.RUNWAY):
                    assert value is not None
                    want = book.balances(value, kind == l1_fees.RUNWAY)
                else:
                    want = book.series(kind, column, value)
                assert r.json()["results"] == want, (path, name)
                compared += len(want)
        # A window clips the cumulative series as the per-request code did.
        lo, hi = CONFIG.start + 9 * DAY + 5, CONFIG.start + 20 * DAY
        r = c.get(
            "/v2/validators/metrics/totalCumulativeFeesDaily",
            params={"startTimestamp": lo, "endTimestamp": hi},
        )
        full = book.series(l1_fees.CUMULATIVE, None, None)
        assert r.json()["results"] == [p for p in full if lo <= p["timestamp"] <= hi]
    reader.dispose()
    return compared


def test_rollup_equals_the_per_request_series_and_rebuild(engine: Engine, node_url: str) -> None:
    # Small batches: rollups move many times, days close inside and between batches.
    asyncio.run(index_node(engine, node_url, once=True, batch=7))
    rolled = _tables(engine)
    assert rolled["metric_staking_days"] and rolled["metric_l1_fee_days"]
    (clock,) = rolled["metric_p_clock"]
    with engine.connect() as conn:
        assert clock[2] == p_chain_now(conn)
    assert _check_api(engine) > 100
    rebuild(engine)
    assert _tables(engine) == rolled
    assert _check_api(engine) > 100


def test_a_replayed_batch_changes_nothing(engine: Engine, node_url: str) -> None:
    from avadata.store.metrics import pchain_inputs, pchain_writer

    asyncio.run(index_node(engine, node_url, once=True, batch=50))
    rolled = _tables(engine)
    with engine.begin() as conn:
        stored = pchain_inputs.stored_changes(conn)
        assert stored is not None
        pchain_writer.apply_changes(conn, [stored])
    assert _tables(engine) == rolled
