"""The official SDK (@avalanche-sdk/chainkit 0.3.13) against the Metrics API's newer routes:
its zod schemas parse every answer (rolling windows, staking series paged to the end, L1 fee
series, validators:getAddresses paged, ICM), the values it parsed equal a second computation
(for rolling windows the oracle and the per-request sum over the window's buckets; plain HTTP
for the rest, itself checked in tests/metrics/test_primary_metrics.py), and bad IDs come back
as its typed errors."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from avadata.api.app import create_app
from avadata.decode.codec.ids import cb58_encode
from avadata.devnet.primary.node import NodeOptions, PrimaryNode
from avadata.metrics.rolling import DISTINCT_KIND, ROLLING_METRICS
from avadata.records.primary import PRIMARY_SUBNET
from avadata.settings import Settings
from avadata.store.metrics import l1_reads, series_reads
from avadata.store.metrics.rollup_writer import apply_metrics
from avadata.store.writer import mark_chain, write_evm_batch
from tests.api.http import TestClient
from tests.metrics.rolling_per_request import per_request
from tests.metrics.synth import history
from tests.metrics.test_primary_metrics import CONFIG
from tests.metrics.test_rolling import _expected
from tests.support.primary_world import indexed, served_node
from tests.support.server import TOOLS, run_node, serving

SCRIPT = Path(__file__).with_name("metrics_more.mjs")
pytestmark = [pytest.mark.client]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict, object]]:
    folder = tmp_path_factory.mktemp("sdk-metrics-more")
    node = PrimaryNode(NodeOptions(CONFIG, data_dir=folder, live_interval=None))
    node.start()
    with served_node(node) as url:
        engine = indexed(folder / "store.db", url)
    h = history(11, seed=311, days=20)
    mark_chain(engine, 11, network="testnet", name="Chain 11")
    for b in h.batches:
        write_evm_batch(engine, b, appliers=[apply_metrics])
    with engine.connect() as conn:
        vid, subnet, node_id = l1_reads.validations(conn)[0]
        scope = series_reads.resolve_scope(conn, "11")
        assert scope is not None
        # The second computation of the windows served from running totals.
        summed = [m for m in ROLLING_METRICS if m not in DISTINCT_KIND]
        rolling = {m: per_request(conn, scope, m) for m in summed}
    ids = {"validationId": vid, "subnetId": subnet, "nodeId": node_id, "rolling": rolling}
    settings = Settings(db_url=str(engine.url), page_token_secret="test-secret-0123456789")
    engine.dispose()
    app = create_app(settings)
    with serving(app) as base, TestClient(app) as client:
        yield base, {"history": h, **ids}, client


def test_sdk_parses_the_newer_metrics_routes(server, tmp_path: Path) -> None:
    base, facts, client = server
    out = tmp_path / "sdk.json"
    args = {
        "toolsDir": str(TOOLS),
        "outFile": str(out),
        "chainId": "11",
        "chainBlockchainId": "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5",
        "rollingMetrics": [m.value for m in ROLLING_METRICS],
        "validationId": facts["validationId"],
        "nodeId": facts["nodeId"],
        "subnetId": facts["subnetId"],
        "primarySubnet": PRIMARY_SUBNET,
        "unknownId": cb58_encode(bytes(range(32))),
    }
    status, stderr = run_node(SCRIPT, base, json.dumps(args), timeout=170)
    assert status["_returncode"] == 0 and status["ok"], json.dumps(status)[:3000] + stderr
    res = json.loads(out.read_text())["results"]

    for m in ROLLING_METRICS:
        got = res[f"rolling/{m.value}"]["result"]
        want = _expected(facts["history"].oracle, m.value)
        assert got.keys() == want.keys(), m
        assert all(math.isclose(got[w], want[w], rel_tol=1e-9) for w in want), m
        again = facts["rolling"].get(m, want)
        assert all(math.isclose(got[w], again[w], rel_tol=1e-9) for w in want), m

    def http(url: str, key: str = "results") -> list:
        items, token = [], None
        while True:
            r = client.get(url, params={"pageToken": token} if token else {})
            assert r.status_code == 200, r.text
            items += r.json()[key]
            token = r.json().get("nextPageToken")
            if not token:
                return items

    for metric in ("validatorCount", "validatorWeight", "delegatorCount", "delegatorWeight"):
        got = res[f"staking/{metric}"]
        assert got["pages"] > 1
        assert got["items"] == http(f"/v2/networks/fuji/metrics/{metric}")
    routes = {
        "total": "/v2/validators/metrics/{}",
        "validation": f"/v2/validation/{facts['validationId']}/metrics/{{}}",
        "node": f"/v2/validator/{facts['nodeId']}/metrics/{{}}",
        "subnet": f"/v2/subnet/{facts['subnetId']}/metrics/{{}}",
    }
    for name, body in res.items():
        group, _, metric = name.partition("/")
        if group in routes:
            assert body["results"] and body["results"] == http(routes[group].format(metric))
    addresses = res["addresses"]
    assert addresses["pages"] > 1
    assert addresses["items"] == http(
        f"/v2/subnets/{PRIMARY_SUBNET}/validators:getAddresses", "addresses"
    )
    assert res["icm/timeseries"] == {"results": []}
    assert res["icm/summary"]["result"]["allTime"] == 0
