"""The official SDK (@avalanche-sdk/chainkit 0.3.13) against our Metrics API: it parses every
series page and pages through; the values it parsed equal the independent oracle; error
cases come back as the SDK's typed errors in the seed's shape."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from avadata.api.app import create_app
from avadata.metrics.catalog import METRICS
from avadata.settings import Settings
from avadata.store.engine import make_engine
from avadata.store.metrics.rollup_writer import apply_metrics
from avadata.store.migrate import migrate
from avadata.store.writer import mark_chain, write_evm_batch
from tests.metrics import oracle
from tests.metrics.synth import history
from tests.support.server import TOOLS, run_node, serving

SCRIPT = Path(__file__).with_name("metrics.mjs")
CHAINS = {11: "mainnet", 22: "testnet"}

pytestmark = [
    pytest.mark.client,
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict]]:
    url = f"sqlite:///{tmp_path_factory.mktemp('sdk-metrics') / 'store.db'}"
    eng = make_engine(url)
    migrate(eng)
    hs = {c: history(c, seed=300 + c, days=41) for c in CHAINS}
    for c, net in CHAINS.items():
        mark_chain(
            eng,
            c,
            network=net,
            name=f"Chain {c}",
            blockchain_id="2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5",
            subnet_id="11111111111111111111111111111111LpoYY",
        )
        for b in hs[c].batches:
            write_evm_batch(eng, b, appliers=[apply_metrics])
    eng.dispose()
    with serving(create_app(Settings(db_url=url))) as base:
        yield base, hs


def test_sdk_parses_and_pages_every_metric(server, tmp_path: Path) -> None:
    base, hs = server
    scopes = {"11": [11], "22": [22], "total": [11, 22], "testnet": [22]}
    calls = []
    for chain_id in scopes:
        for name, metric in METRICS.items():
            for interval in metric.intervals:
                # Hourly series page in 500s; daily in 7s, so every metric crosses pages too.
                size = 500 if interval.value == "hour" else 7
                calls.append([chain_id, name, interval.value, size])
    out = tmp_path / "sdk-metrics.json"
    args = {"toolsDir": str(TOOLS), "chainId": "11", "calls": calls, "outFile": str(out)}
    status, stderr = run_node(SCRIPT, base, json.dumps(args), timeout=170)
    assert status["_returncode"] == 0 and status["ok"], json.dumps(status)[:3000] + stderr
    result = json.loads(out.read_text())

    for (chain_id, name, interval, size), key in zip(
        calls, [f"{c[0]}/{c[1]}/{c[2]}/{c[3]}" for c in calls], strict=True
    ):
        got = result["series"][key]
        want = oracle.series([b for c in scopes[chain_id] for b in hs[c].oracle], name, interval)
        assert got["pages"] == max(1, -(-len(want) // size)), key
        assert [t for t, _ in got["points"]] == sorted(want, reverse=True), key
        assert all(math.isclose(v, want[t], rel_tol=1e-9) for t, v in got["points"]), key

    assert result["listing"]["list"] == [11, 22]
    assert result["listing"]["get"]["network"] == "mainnet"
    for name, err in result["errors"].items():
        assert err["statusCode"] in (400, 404), name
        assert err["message"], name
    for name, r in result["raw"].items():
        assert r["contentType"].startswith("application/json"), name
        if name == "v1 avg_tps":
            assert r["status"] == 200 and {"results", "status", "lastRun"} <= set(r["body"])
        else:
            assert r["status"] == 400 and set(r["body"]) == {"message", "error", "statusCode"}
