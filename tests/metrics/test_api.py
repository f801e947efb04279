"""The Metrics API over HTTP: every metric, allowed interval and chain ID (incl. aggregates)
agrees with the independent oracle; paging, tokens, errors, chains listing, rate limit."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import update

from avadata.api.app import create_app
from avadata.metrics.catalog import METRICS
from avadata.settings import Settings
from avadata.store.engine import make_engine
from avadata.store.metrics.rollup_writer import apply_metrics
from avadata.store.migrate import migrate
from avadata.store.schema import metric_page_tokens
from avadata.store.writer import mark_chain, write_evm_batch
from tests.api.http import TestClient
from tests.metrics import oracle
from tests.metrics.synth import History, history

CHAINS = {11: "mainnet", 22: "testnet", 33: None}
SCOPES = {"11": [11], "22": [22], "mainnet": [11], "testnet": [22, 33], "total": [11, 22, 33]}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[int, History]]:
    path: Path = tmp_path_factory.mktemp("metrics-api") / "store.db"
    url = f"sqlite:///{path}"
    eng = make_engine(url)
    migrate(eng)
    hs = {c: history(c, seed=100 + c, days=42) for c in CHAINS}
    for c, net in CHAINS.items():
        mark_chain(eng, c, network=net, name=f"Chain {c}" if c != 22 else None)
    for h in hs.values():
        for b in h.batches:
            write_evm_batch(eng, b, appliers=[apply_metrics])
    eng.dispose()
    return url, hs


@pytest.fixture(scope="module")
def client(store) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(db_url=store[0])), raise_server_exceptions=False) as c:
        yield c


def _all_pages(client: TestClient, path: str, **params) -> list[dict]:
    out: list[dict] = []
    token = None
    while True:
        q = dict(params) | ({"pageToken": token} if token else {})
        r = client.get(path, params=q)
        assert r.status_code == 200, r.text
        assert r.headers["content-type"].startswith("application/json")
        body = r.json()
        assert set(body) <= {"results", "nextPageToken"}
        out += body["results"]
        token = body.get("nextPageToken")
        if not token:
            return out


def test_every_metric_interval_and_chain(client, store) -> None:
    hs = store[1]
    for chain_id, members in SCOPES.items():
        facts = [b for c in members for b in hs[c].oracle]
        for name, metric in METRICS.items():
            for interval in metric.intervals:
                want = oracle.series(facts, name, interval.value)
                got = _all_pages(
                    client,
                    f"/v2/chains/{chain_id}/metrics/{name}",
                    timeInterval=interval.value,
                    pageSize=2160,
                )
                assert [p["timestamp"] for p in got] == sorted(want, reverse=True)
                for p in got:
                    assert isinstance(p["timestamp"], int)
                    assert set(p) == {"value", "timestamp"}
                    assert math.isclose(p["value"], want[p["timestamp"]], rel_tol=1e-9), (
                        chain_id,
                        name,
                        interval,
                        p,
                    )


def test_paging_through_matches_one_page(client) -> None:
    path = "/v2/chains/total/metrics/activeAddresses"
    whole = _all_pages(client, path, timeInterval="hour", pageSize=2160)
    paged = _all_pages(client, path, timeInterval="hour", pageSize=97)
    assert paged == whole and len(whole) > 2 * 97


def test_unaligned_bounds(client, store) -> None:
    facts = store[1][11].oracle
    want = oracle.series(facts, "txCount", "day")
    days = sorted(want)
    start, end = days[3] + 1234, days[10] + 5
    got = _all_pages(
        client,
        "/v2/chains/11/metrics/txCount",
        startTimestamp=start,
        endTimestamp=end,
        timeInterval="day",
    )
    assert [p["timestamp"] for p in got] == [d for d in reversed(days) if start <= d <= end]


def test_default_interval_is_day_and_newest_is_flagged(client) -> None:
    r = client.get("/v2/chains/22/metrics/txCount", params={"pageSize": 3})
    body = r.json()
    ts = [p["timestamp"] for p in body["results"]]
    assert len(ts) == 3 and ts == sorted(ts, reverse=True) and ts[0] - ts[1] == 86400
    assert r.headers["x-avadata-incomplete-bucket"] == str(ts[0])
    r2 = client.get("/v2/chains/22/metrics/txCount", params={"pageToken": body["nextPageToken"]})
    assert "x-avadata-incomplete-bucket" not in r2.headers


def _error(r, status: int) -> str:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"message", "error", "statusCode"}
    assert body["statusCode"] == status
    return body["message"]


@pytest.mark.parametrize(
    ("path", "params", "needle"),
    [
        ("/v2/chains/11/metrics/nope", {}, "metric"),
        ("/v2/chains/11/metrics/txCount", {"timeInterval": "year"}, "timeInterval"),
        ("/v2/chains/11/metrics/maxTps", {"timeInterval": "hour"}, "timeInterval"),
        ("/v2/chains/11/metrics/feesPaid", {"timeInterval": "week"}, "timeInterval"),
        ("/v2/chains/11/metrics/txCount", {"startTimestamp": "-1"}, "startTimestamp"),
        ("/v2/chains/11/metrics/txCount", {"endTimestamp": "soon"}, "endTimestamp"),
        ("/v2/chains/11/metrics/txCount", {"startTimestamp": 9, "endTimestamp": 1}, "start"),
        ("/v2/chains/11/metrics/txCount", {"pageSize": 0}, "pageSize"),
        ("/v2/chains/11/metrics/txCount", {"pageSize": 2161}, "pageSize"),
        ("/v2/chains/11/metrics/txCount", {"pageToken": "x"}, "first page"),
        (
            "/v2/chains/11/metrics/txCount",
            {"pageToken": "3f1d1c9e-0000-4000-8000-000000000000"},
            "first page",
        ),
        ("/v2/chains/avalanche/metrics/txCount", {}, "chainId"),
        ("/v1/avg_tps/11", {"pageToken": "nope"}, "first page"),
    ],
)
def test_bad_requests(client, path, params, needle) -> None:
    assert needle in _error(client.get(path, params=params), 400)


def test_unknown_chain_is_404(client) -> None:
    _error(client.get("/v2/chains/999/metrics/txCount"), 404)
    _error(client.get("/v2/chains/999"), 404)


def test_expired_and_foreign_tokens(client, store) -> None:
    r = client.get("/v2/chains/11/metrics/txCount", params={"pageSize": 2})
    token = r.json()["nextPageToken"]
    other = client.get("/v2/chains/11/metrics/gasUsed", params={"pageToken": token})
    assert "first page" in _error(other, 400)
    eng = make_engine(store[0])
    with eng.begin() as conn:
        conn.execute(
            update(metric_page_tokens)
            .where(metric_page_tokens.c.token == token)
            .values(created_at=metric_page_tokens.c.created_at - 24 * 3600 - 1)
        )
    eng.dispose()
    expired = client.get("/v2/chains/11/metrics/txCount", params={"pageToken": token})
    assert "expired" in _error(expired, 400)


def test_token_is_usable_by_another_app(client, store) -> None:
    token = client.get("/v2/chains/11/metrics/txCount", params={"pageSize": 2}).json()[
        "nextPageToken"
    ]
    with TestClient(create_app(Settings(db_url=store[0]))) as other:
        r = other.get("/v2/chains/11/metrics/txCount", params={"pageToken": token, "pageSize": 2})
        assert r.status_code == 200 and len(r.json()["results"]) == 2


def test_v1_avg_tps(client, store) -> None:
    hs = store[1]
    want = oracle.series(hs[11].oracle, "avgTps", "day")
    r = client.get("/v1/avg_tps/11")
    body = r.json()
    assert set(body) <= {"results", "status", "lastRun", "nextPageToken"}
    assert body["status"] == 200
    assert body["lastRun"] == max(b.timestamp for b in hs[11].oracle)
    assert [p["timestamp"] for p in body["results"]] == sorted(want, reverse=True)
    for p in body["results"]:
        assert math.isclose(p["value"], want[p["timestamp"]], rel_tol=1e-9)


def test_chains_listing(client) -> None:
    body = client.get("/v2/chains").json()
    assert body == {
        "chains": [
            {
                "evmChainId": 11,
                "chainName": "Chain 11",
                "blockchainId": "",
                "subnetId": "",
                "network": "mainnet",
            },
            {
                "evmChainId": 22,
                "chainName": "Chain 22",
                "blockchainId": "",
                "subnetId": "",
                "network": "testnet",
            },
            {
                "evmChainId": 33,
                "chainName": "Chain 33",
                "blockchainId": "",
                "subnetId": "",
                "network": "testnet",
            },
        ]
    }
    assert [c["evmChainId"] for c in client.get("/v2/chains?network=mainnet").json()["chains"]] == [
        11
    ]
    assert client.get("/v2/chains/33").json()["network"] == "testnet"


def test_rate_limit(store) -> None:
    settings = Settings(db_url=store[0], rate_limit_anonymous=3, rate_limit_loopback=True)
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        codes = [c.get("/v2/chains/11/metrics/txCount").status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        r = c.get("/v2/chains/11/metrics/txCount")
        _error(r, 429)
        assert int(r.headers["retry-after"]) >= 1
    # Loopback is exempt by default.
    settings = Settings(db_url=store[0], rate_limit_anonymous=1)
    with TestClient(create_app(settings)) as c:
        assert all(c.get("/v2/chains").status_code == 200 for _ in range(3))


def test_repeated_page_reuses_its_token(client) -> None:
    params = {"timeInterval": "hour", "pageSize": 5}
    a = client.get("/v2/chains/22/metrics/gasUsed", params=params).json()["nextPageToken"]
    b = client.get("/v2/chains/22/metrics/gasUsed", params=params).json()["nextPageToken"]
    c = client.get("/v2/chains/22/metrics/txCount", params=params).json()["nextPageToken"]
    assert a == b != c
    # The token names a UUID (seed: "a UUID-based token").
    import uuid

    assert str(uuid.UUID(a)) == a


def test_the_documented_largest_timestamps_are_served(client) -> None:
    """startTimestamp/endTimestamp at the documented maximum (the last second of year 9999)
    answer, whatever the interval: a month after it has no calendar date (it was a 500)."""
    from avadata.api.metrics.routes import MAX_TIMESTAMP

    for name, metric in METRICS.items():
        for interval in metric.intervals:
            for q in ("startTimestamp", "endTimestamp"):
                r = client.get(
                    f"/v2/chains/11/metrics/{name}",
                    params={q: MAX_TIMESTAMP, "timeInterval": interval.value},
                )
                assert r.status_code == 200, (name, interval, q, r.text)
                assert (r.json()["results"] == []) == (q == "startTimestamp")
    too_late = client.get(
        "/v2/chains/11/metrics/txCount", params={"endTimestamp": MAX_TIMESTAMP + 1}
    )
    assert too_late.status_code == 400 and too_late.json()["message"].startswith("endTimestamp")
