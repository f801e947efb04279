"""API keys and rate limits: 429 with Retry-After over the limit, a key raises the limit, an
unknown or revoked key is a 401, loopback is exempt by default; keys are stored hashed. One
limiter serves the Data API and the Metrics API: a /v2 request is counted once, both answer
429 in the seed's error shape, and a key raises the metrics limit too."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from avadata.api import limits
from avadata.api.app import create_app
from avadata.settings import Settings
from avadata.store.keys import create_key, list_keys, revoke_key
from tests.api.http import TestClient
from tests.api.routes import CHAIN_ID, C

METRIC = f"/v2/chains/{CHAIN_ID}/metrics/txCount"


def _client(url: str, host: str, **kw: object) -> TestClient:
    settings = Settings(db_url=url, page_token_secret="limits-secret-0123", **kw)
    return TestClient(create_app(settings), client=(host, 50000))


def test_anonymous_limit_then_429(store) -> None:
    with _client(store[0], "203.0.113.7", rate_limit_anonymous=3) as c:
        codes = [c.get(f"{C}/blocks").status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        resp = c.get(f"{C}/blocks")
        assert resp.status_code == 429
        assert 1 <= int(resp.headers["retry-after"]) <= 60
        body = resp.json()
        assert body["error"] == "Too Many Requests" and body["statusCode"] == 429
        # The documentation is never limited.
        assert c.get("/openapi.json").status_code == 200


def test_loopback_exempt_by_default(store) -> None:
    with _client(store[0], "127.0.0.1", rate_limit_anonymous=1) as c:
        assert {c.get(f"{C}/blocks").status_code for _ in range(5)} == {200}
    with _client(store[0], "127.0.0.1", rate_limit_anonymous=1, rate_limit_loopback=True) as c:
        assert [c.get(f"{C}/blocks").status_code for _ in range(2)] == [200, 429]


def _private_store(tmp_path: Path, url: str) -> tuple[Path, str]:
    """A private copy of the shared store, for tests that write keys."""
    db = tmp_path / "keys.db"
    src = sqlite3.connect(url.removeprefix("sqlite:///"))
    dst = sqlite3.connect(db)
    src.backup(dst)
    src.close()
    dst.close()
    return db, f"sqlite:///{db}"


def test_key_raises_limit_and_revocation(tmp_path: Path, store) -> None:
    db, url = _private_store(tmp_path, store[0])
    writer = create_engine(url)
    key, info = create_key(writer, "test", None)
    slow_key, _ = create_key(writer, "slow", 1)
    with _client(url, "198.51.100.2", rate_limit_anonymous=1, rate_limit_keyed=5) as c:
        assert [c.get(f"{C}/blocks").status_code for _ in range(2)] == [200, 429]
        seed_header = [c.get(f"{C}/blocks", headers={"x-data-api-key": key}) for _ in range(3)]
        sdk_header = [c.get(f"{C}/blocks", headers={"x-glacier-api-key": key}) for _ in range(3)]
        codes = [r.status_code for r in seed_header + sdk_header]
        assert codes == [200] * 5 + [429]  # both headers count against the same key
        slow = [c.get(f"{C}/blocks", headers={"x-data-api-key": slow_key}) for _ in range(2)]
        assert [r.status_code for r in slow] == [200, 429]
        bad = c.get(f"{C}/blocks", headers={"x-data-api-key": "avd_nope_nope"})
        assert bad.status_code == 401 and bad.json()["error"] == "Unauthorized"
    assert revoke_key(writer, info.key_id)
    assert not revoke_key(writer, info.key_id)
    with _client(url, "198.51.100.2") as c:
        assert c.get(f"{C}/blocks", headers={"x-data-api-key": key}).status_code == 401
    # Only hashes are stored.
    raw = db.read_bytes()
    assert key.encode() not in raw
    assert {k.key_id for k in list_keys(writer)} == {info.key_id, slow_key.split("_")[1]}


def test_keys_cli(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from avadata.cli.main import app

    db = f"sqlite:///{tmp_path / 'cli.db'}"
    runner = CliRunner()
    made = runner.invoke(app, ["keys", "create", "--db", db, "--name", "ci"])
    assert made.exit_code == 0, made.output
    key = made.stdout.strip().splitlines()[0]
    assert key.startswith("avd_")
    key_id = key.split("_")[1]
    listed = runner.invoke(app, ["keys", "list", "--db", db])
    assert key_id in listed.stdout and "active" in listed.stdout and key not in listed.stdout
    assert runner.invoke(app, ["keys", "revoke", "--db", db, key_id]).exit_code == 0
    assert "revoked" in runner.invoke(app, ["keys", "list", "--db", db]).stdout
    assert runner.invoke(app, ["keys", "revoke", "--db", db, key_id]).exit_code == 1


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
    _, url = _private_store(tmp_path, store[0])
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
