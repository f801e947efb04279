"""One limiter for the Data API and the Metrics API: a /v2 request is counted once, both APIs
answer 429 in the seed's error shape at their limits, and a key raises the metrics limit too."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from avadata.api import limits
from avadata.api.app import create_app
from avadata.api.keystore import create_key
from avadata.settings import Settings
from tests.api.http import TestClient
from tests.api.routes import CHAIN_ID, C

METRIC = f"/v2/chains/{CHAIN_ID}/metrics/txCount"


def _client(url: str, host: str, **kw: object) -> TestClient:
    settings = Settings(db_url=url, page_token_secret="limits-secret-0123", **kw)
    return TestClient(create_app(settings), client=(host, 50000))


def _assert_429(resp) -> None:  # type: ignore[no-untyped-def]
    assert resp.status_code == 429
    assert 1 <= int(resp.headers["retry-after"]) <= 60
    body = resp.json()
    assert set(body) == {"message", "error", "statusCode"}
    assert body["error"] == "Too Many Requests" and body["statusCode"] == 429


def test_v2_request_counted_once(store, monkeypatch: pytest.MonkeyPatch) -> None:
    # Every request passes the app's one limiter exactly once (a second limiter in the metrics
    # routes would also show in the keyed test below: its per-IP count would 429 a keyed caller).
    hits: list[str] = []
    real = limits.Windows.hit

    def spy(self: limits.Windows, client: str, limit: int) -> float | None:
        hits.append(client)
        return real(self, client, limit)

    monkeypatch.setattr(limits.Windows, "hit", spy)
    with _client(store[0], "203.0.113.9", rate_limit_anonymous=100) as c:
        assert c.get(METRIC).status_code == 200
        assert c.get("/v2/chains").status_code == 200
        assert c.get(f"{C}/blocks").status_code == 200
    assert hits == ["ip:203.0.113.9"] * 3


def test_both_apis_share_one_budget_and_answer_429(store) -> None:
    with _client(store[0], "203.0.113.10", rate_limit_anonymous=3) as c:
        codes = [c.get(p).status_code for p in (METRIC, f"{C}/blocks", "/v2/chains")]
        assert codes == [200, 200, 200]
        _assert_429(c.get(METRIC))
        _assert_429(c.get(f"{C}/blocks"))
        _assert_429(c.get("/v1/avg_tps/1"))


def test_metrics_limit_per_client(store) -> None:
    with _client(store[0], "203.0.113.11", rate_limit_anonymous=1) as a:
        assert a.get(METRIC).status_code == 200
        _assert_429(a.get(METRIC))
    # Another client has its own window (a new app, as another process would, plus a new IP).
    with _client(store[0], "203.0.113.12", rate_limit_anonymous=1) as b:
        assert b.get(METRIC).status_code == 200


def test_key_raises_metrics_limit_unknown_key_ignored(tmp_path: Path, store) -> None:
    # A private copy of the store: this test writes keys.
    db = tmp_path / "keys.db"
    src = sqlite3.connect(store[0].removeprefix("sqlite:///"))
    dst = sqlite3.connect(db)
    src.backup(dst)
    src.close()
    dst.close()
    url = f"sqlite:///{db}"
    key, _ = create_key(create_engine(url), "metrics", None)
    with _client(url, "198.51.100.3", rate_limit_anonymous=1, rate_limit_keyed=3) as c:
        keyed = [c.get(METRIC, headers={"x-glacier-api-key": key}) for _ in range(4)]
        assert [r.status_code for r in keyed[:3]] == [200, 200, 200]
        _assert_429(keyed[3])
        # Metrics needs no key: an unknown one counts as none (per client), not a 401...
        assert c.get(METRIC, headers={"x-data-api-key": "avd_nope_nope"}).status_code == 200
        _assert_429(c.get(METRIC, headers={"x-data-api-key": "avd_nope_nope"}))
        # ...while the Data API still refuses it.
        assert c.get(f"{C}/blocks", headers={"x-data-api-key": "avd_nope_nope"}).status_code == 401
