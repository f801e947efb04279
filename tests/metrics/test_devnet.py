"""The main check: on two seeded devnet chains (anvil, >= 40 simulated days across week and
month boundaries) indexed with the metrics applier, every metric for every allowed interval
and every chain ID (each chain, mainnet, testnet, total) served by the API equals the
independent recomputation from the node's raw JSON-RPC data (tests/metrics/node_facts.py)."""

from __future__ import annotations

import asyncio
import dataclasses
import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from avadata.api.app import create_app
from avadata.metrics.catalog import METRICS
from avadata.settings import Settings
from avadata.store.engine import make_engine
from avadata.store.migrate import migrate
from avadata.store.writer import mark_chain
from tests.api.http import TestClient
from tests.metrics import oracle
from tests.metrics.node_facts import facts

pytestmark = pytest.mark.e2e

MAINNET_ID, TESTNET_ID = 43114, 43113


@pytest.fixture(scope="module")
def devnet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[int, list]]]:
    from avadata.devnet.evm.traffic import SMALL, start_with_traffic
    from avadata.indexer.appliers import ROLLUP
    from avadata.indexer.run import RunOptions, index_chains

    second = dataclasses.replace(SMALL, seed=2, blocks=240, days=41)
    nodes = []
    try:
        nodes.append(start_with_traffic(TESTNET_ID, SMALL)[0])
        nodes.append(start_with_traffic(MAINNET_ID, second)[0])
        path: Path = tmp_path_factory.mktemp("metrics-devnet") / "store.db"
        url = f"sqlite:///{path}"
        eng = make_engine(url)
        migrate(eng)
        mark_chain(eng, MAINNET_ID, network="mainnet")
        mark_chain(eng, TESTNET_ID, network="testnet")
        asyncio.run(
            index_chains(
                eng,
                [n.rpc_url for n in nodes],
                RunOptions(once=True, chunk_blocks=25),
                appliers=[ROLLUP],
            )
        )
        eng.dispose()
        truth = {
            TESTNET_ID: facts(nodes[0].rpc_url, TESTNET_ID),
            MAINNET_ID: facts(nodes[1].rpc_url, MAINNET_ID),
        }
        yield url, truth
    finally:
        for n in nodes:
            n.stop()


def test_fixture_spans_the_boundaries(devnet) -> None:
    _, truth = devnet
    for blocks in truth.values():
        ts = [b.timestamp for b in blocks]
        assert (max(ts) - min(ts)) / 86400 >= 40
        assert len({oracle.bucket_of(t, "month") for t in ts}) >= 2
        assert len({oracle.bucket_of(t, "week") for t in ts}) >= 6
        assert sum(len(b.creators) for b in blocks) > 0
        assert sum(len(b.transfers) for b in blocks) > 0


def test_api_equals_the_node_for_every_metric(devnet) -> None:
    url, truth = devnet
    scopes = {
        str(TESTNET_ID): [TESTNET_ID],
        str(MAINNET_ID): [MAINNET_ID],
        "mainnet": [MAINNET_ID],
        "testnet": [TESTNET_ID],
        "total": [TESTNET_ID, MAINNET_ID],
    }
    checked = 0
    with TestClient(create_app(Settings(db_url=url))) as client:
        for chain_id, members in scopes.items():
            blocks = [b for c in members for b in truth[c]]
            for name, metric in METRICS.items():
                for interval in metric.intervals:
                    want = oracle.series(blocks, name, interval.value)
                    got: list[dict] = []
                    params: dict = {"timeInterval": interval.value, "pageSize": 500}
                    while True:
                        r = client.get(f"/v2/chains/{chain_id}/metrics/{name}", params=params)
                        assert r.status_code == 200, r.text
                        body = r.json()
                        got += body["results"]
                        if "nextPageToken" not in body:
                            break
                        params["pageToken"] = body["nextPageToken"]
                    assert [p["timestamp"] for p in got] == sorted(want, reverse=True), (
                        chain_id,
                        name,
                        interval,
                    )
                    wrong = [
                        (p["timestamp"], p["value"], want[p["timestamp"]])
                        for p in got
                        if not math.isclose(p["value"], want[p["timestamp"]], rel_tol=1e-9)
                    ]
                    assert not wrong, (chain_id, name, interval.value, wrong[:3])
                    checked += 1
    assert checked == 5 * (4 * 4 + 13)
