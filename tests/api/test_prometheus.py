"""GET /metrics, parsed by prometheus_client's own parser: chain heads and lag equal the
indexed chain's last block, request counters and histograms count exactly the requests made
(per route template and status), and the L1 validators' balances equal the simulator's."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from avadata.api.app import create_app
from avadata.decode.codec.ids import cb58_encode
from avadata.devnet.primary.node import NodeOptions, PrimaryNode
from avadata.devnet.primary.simulator import PrimarySim
from avadata.metrics.l1_fees import FEE_PER_SECOND
from avadata.settings import Settings
from avadata.store.metrics.rollup_writer import apply_metrics
from avadata.store.primary.queries.validators import p_chain_now
from avadata.store.writer import mark_chain, write_evm_batch
from tests.api.http import TestClient
from tests.metrics.synth import History, history
from tests.metrics.test_primary_metrics import CONFIG
from tests.support.primary_world import indexed, served_node

World = tuple[TestClient, PrimarySim, History, int]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    folder: Path = tmp_path_factory.mktemp("prometheus")
    node = PrimaryNode(NodeOptions(CONFIG, data_dir=folder, live_interval=None))
    node.start()
    with served_node(node) as url:
        engine = indexed(folder / "store.db", url)
    h = history(7, seed=7, days=2)
    mark_chain(engine, 7, network="testnet")
    for b in h.batches:
        write_evm_batch(engine, b, appliers=[apply_metrics])
    with engine.connect() as conn:
        p_now = p_chain_now(conn)
    assert p_now is not None
    settings = Settings(db_url=str(engine.url))
    engine.dispose()
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        yield c, node.sim, h, p_now


def _scrape(c: TestClient) -> dict[str, list]:
    r = c.get("/metrics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    out: dict[str, list] = {}
    for family in text_string_to_metric_families(r.text):
        out.setdefault(family.name, []).extend(family.samples)
    return out


def test_heads_and_lag(world: World) -> None:
    c, _, h, _ = world
    last = h.oracle[-1]
    before = int(time.time())
    m = _scrape(c)
    after = int(time.time())
    heads = {s.labels["chain"]: s.value for s in m["avadata_index_head_block"]}
    assert heads == {"7": last.number}
    (lag,) = m["avadata_index_lag_seconds"]
    assert before - last.timestamp <= lag.value <= after - last.timestamp
    primary = {
        s.labels["blockchain_id"]: s.value for s in m["avadata_primary_index_head_container"]
    }
    assert len(primary) == 3 and all(v >= 0 for v in primary.values())


def test_requests_and_latency_per_route(world: World) -> None:
    c = world[0]
    template = "/v2/chains/{chainId}/metrics/{metric}"

    def count(m: dict[str, list], status: str) -> float:
        return sum(
            s.value
            for s in m["avadata_api_requests"]
            if s.name == "avadata_api_requests_total"
            and s.labels == {"route": template, "method": "GET", "status": status}
        )

    def observed(m: dict[str, list]) -> float:
        return sum(
            s.value
            for s in m["avadata_api_request_seconds"]
            if s.name == "avadata_api_request_seconds_count" and s.labels["route"] == template
        )

    m0 = _scrape(c)
    for _ in range(5):
        assert c.get("/v2/chains/7/metrics/txCount").status_code == 200
    for _ in range(3):
        assert c.get("/v2/chains/999/metrics/txCount").status_code == 404
    assert c.get("/no/such/path").status_code == 404
    m1 = _scrape(c)
    assert count(m1, "200") - count(m0, "200") == 5
    assert count(m1, "404") - count(m0, "404") == 3
    assert observed(m1) - observed(m0) == 8
    unmatched = [s for s in m1["avadata_api_requests"] if s.labels.get("route") == "unmatched"]
    assert unmatched and all(
        "/no/such/path" not in str(s.labels) for s in m1["avadata_api_requests"]
    )


def test_l1_balances_and_runway(world: World) -> None:
    c, sim, _, p_now = world
    state = sim.p.state
    truth = {
        cb58_encode(k): v for k, v in {**state.removed_l1_validators, **state.l1_validators}.items()
    }
    m = _scrape(c)
    balances = {s.labels["validation_id"]: s.value for s in m["avadata_l1_validator_balance_navax"]}
    runways = {s.labels["validation_id"]: s.value for s in m["avadata_l1_validator_runway_seconds"]}
    assert balances and balances.keys() == truth.keys()
    now = time.time()
    for vid, v in truth.items():
        # The simulator charges the last part-second too; avalanchego (and we) whole seconds.
        assert abs(balances[vid] - v.remaining(p_now)) < FEE_PER_SECOND, vid
        left = balances[vid] // FEE_PER_SECOND - max(0, now - p_now)
        assert abs(runways[vid] - max(0, left)) <= 2, vid


def test_rows_written_per_source_and_table(world: World) -> None:
    """The indexer's counters, read from the store by the API process: each table's count
    equals the rows the store holds for that source (every batch here was written once and
    its rows were new)."""
    from sqlalchemy import func, select

    from avadata.store.engine import make_engine
    from avadata.store.schema import evm_blocks, evm_txs, primary_txs

    c = world[0]
    m = _scrape(c)
    got = {
        (s.labels["source"], s.labels["table"]): s.value
        for s in m["avadata_rows_written"]
        if s.name == "avadata_rows_written_total"
    }
    engine = make_engine(c.app.state.avadata.settings.db_url)
    try:
        with engine.connect() as conn:
            want = {
                ("7", "evm_blocks"): conn.execute(
                    select(func.count()).where(evm_blocks.c.chain_id == 7)
                ).scalar(),
                ("7", "evm_txs"): conn.execute(
                    select(func.count()).where(evm_txs.c.chain_id == 7)
                ).scalar(),
            }
            x, p = (
                conn.execute(
                    select(func.count()).where(primary_txs.c.blockchain_id == chain)
                ).scalar()
                for chain in ("X", "P")
            )
    finally:
        engine.dispose()
    want[("P", "primary_txs")] = p
    assert all(v for v in want.values()), want
    assert {k: got.get(k) for k in want} == want
    # The X-chain's txs came from its vertex index and its block index (two cursors).
    assert got.get(("X", "primary_txs"), 0) + got.get(("X/vtx", "primary_txs"), 0) == x
