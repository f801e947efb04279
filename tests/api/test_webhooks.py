"""The webhooks API (/v1/webhooks) through HTTP: each webhook belongs to the key that created
it (another key neither sees nor changes it, a request without a key is a 401); bad input is a
400 naming the field; private receivers are refused when the server says so."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine

from avadata.api.app import create_app
from avadata.settings import Settings
from avadata.store.keys import create_key
from tests.api.http import TestClient
from tests.api.synthetic import CHAIN_ID
from tests.api.test_limits import _private_store

A1 = "0x" + "a1" * 20
A2 = "0x" + "B2" * 20
RECEIVER = "http://127.0.0.1:9/hook"


@pytest.fixture
def keyed(tmp_path: Path, store) -> Iterator[tuple[TestClient, dict[str, str], dict[str, str]]]:
    _db, url = _private_store(tmp_path, store[0])
    writer = create_engine(url)
    mine, _ = create_key(writer, "mine", None)
    theirs, _ = create_key(writer, "theirs", None)
    writer.dispose()
    settings = Settings(db_url=url, page_token_secret="webhooks-secret-0123")
    settings = settings.model_copy(update={"webhook_max_addresses": 3})
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        yield c, {"x-glacier-api-key": mine}, {"x-glacier-api-key": theirs}


def _body(**over: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "eventType": "address_activity",
        "url": RECEIVER,
        "chainId": str(CHAIN_ID),
        "metadata": {"addresses": [A1]},
    }
    body.update(over)
    return body


def test_create_get_list_update_deactivate(keyed) -> None:
    c, mine, _ = keyed
    made = c.post("/v1/webhooks", json=_body(name="n", includeLogs=True), headers=mine)
    assert made.status_code == 201, made.text
    hook = made.json()
    assert hook["eventType"] == "address_activity" and hook["status"] == "active"
    assert hook["chainId"] == str(CHAIN_ID) and hook["metadata"] == {"addresses": [A1]}
    assert hook["name"] == "n" and hook["description"] == ""
    assert hook["includeLogs"] is True and hook["includeInternalTxs"] is False
    assert isinstance(hook["createdAt"], int) and hook["createdAt"] > 1_700_000_000_000
    wid = hook["id"]
    assert c.get(f"/v1/webhooks/{wid}", headers=mine).json() == hook
    listed = c.get("/v1/webhooks", headers=mine).json()
    assert [h["id"] for h in listed["webhooks"]] == [wid] and "nextPageToken" not in listed
    changed = c.patch(f"/v1/webhooks/{wid}", json={"description": "d"}, headers=mine).json()
    assert changed["description"] == "d" and changed["name"] == "n"
    gone = c.delete(f"/v1/webhooks/{wid}", headers=mine)
    assert gone.status_code == 200 and gone.json()["status"] == "inactive"
    assert c.get("/v1/webhooks?status=active", headers=mine).json()["webhooks"] == []
    assert len(c.get("/v1/webhooks?status=inactive", headers=mine).json()["webhooks"]) == 1
    back = c.patch(f"/v1/webhooks/{wid}", json={"status": "active"}, headers=mine).json()
    assert back["status"] == "active"


def test_pages_of_webhooks_and_addresses(keyed) -> None:
    c, mine, _ = keyed
    ids = [c.post("/v1/webhooks", json=_body(), headers=mine).json()["id"] for _ in range(3)]
    seen, token = [], None
    while True:
        q = "?pageSize=2" + (f"&pageToken={token}" if token else "")
        page = c.get(f"/v1/webhooks{q}", headers=mine).json()
        seen += [h["id"] for h in page["webhooks"]]
        token = page.get("nextPageToken")
        if token is None:
            break
    assert sorted(seen) == sorted(ids) and len(seen) == 3
    wid = ids[0]
    added = c.patch(f"/v1/webhooks/{wid}/addresses", json={"addresses": [A2]}, headers=mine)
    assert added.status_code == 200
    assert added.json()["metadata"]["addresses"] == sorted([A1, A2.lower()])
    first = c.get(f"/v1/webhooks/{wid}/addresses?pageSize=1", headers=mine).json()
    assert first["totalAddresses"] == 2 and len(first["addresses"]) == 1
    second = c.get(
        f"/v1/webhooks/{wid}/addresses?pageSize=1&pageToken={first['nextPageToken']}",
        headers=mine,
    ).json()
    assert first["addresses"] + second["addresses"] == sorted([A1, A2.lower()])
    assert "nextPageToken" not in second
    removed = c.request(
        "DELETE", f"/v1/webhooks/{wid}/addresses", json={"addresses": [A1]}, headers=mine
    )
    assert removed.status_code == 200 and removed.json()["metadata"]["addresses"] == [A2.lower()]


def test_another_key_neither_sees_nor_changes(keyed) -> None:
    c, mine, theirs = keyed
    wid = c.post("/v1/webhooks", json=_body(), headers=mine).json()["id"]
    assert c.get("/v1/webhooks", headers=theirs).json()["webhooks"] == []
    for method, path, body in (
        ("GET", f"/v1/webhooks/{wid}", None),
        ("PATCH", f"/v1/webhooks/{wid}", {"name": "x"}),
        ("DELETE", f"/v1/webhooks/{wid}", None),
        ("PATCH", f"/v1/webhooks/{wid}/addresses", {"addresses": [A2]}),
        ("DELETE", f"/v1/webhooks/{wid}/addresses", {"addresses": [A1]}),
        ("GET", f"/v1/webhooks/{wid}/addresses", None),
        ("POST", f"/v1/webhooks/{wid}/rewind", {"blockNumber": 0}),
    ):
        r = c.request(method, path, json=body, headers=theirs)
        assert r.status_code == 404, (method, path, r.text)
    assert c.get(f"/v1/webhooks/{wid}", headers=mine).json()["name"] == ""
    assert c.get(f"/v1/webhooks/{wid}/addresses", headers=mine).json()["addresses"] == [A1]
    # No key: no owner, no webhooks.
    assert c.get("/v1/webhooks").status_code == 401
    assert c.post("/v1/webhooks", json=_body()).status_code == 401


def test_each_key_has_its_own_secret(keyed) -> None:
    c, mine, theirs = keyed
    got = c.get("/v1/webhooks:getSharedSecret", headers=mine).json()["secret"]
    assert len(bytes.fromhex(got)) == 32
    assert c.get("/v1/webhooks:getSharedSecret", headers=mine).json()["secret"] == got
    rotated = c.post("/v1/webhooks:generateOrRotateSharedSecret", headers=mine)
    assert rotated.status_code == 201 and rotated.json()["secret"] != got
    assert c.get("/v1/webhooks:getSharedSecret", headers=mine).json() == rotated.json()
    assert c.get("/v1/webhooks:getSharedSecret", headers=theirs).json() != rotated.json()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (_body(url="ftp://example.com/x"), "url"),
        (_body(url="not a url"), "url"),
        (_body(eventType="block_activity"), "eventType"),
        ({"url": RECEIVER}, "eventType"),
        (_body(eventType="validator_activity"), "network"),  # its own request shape
        (_body(chainId="999999"), "chainId"),
        (_body(metadata={"addresses": ["0x12"]}), "metadata.addresses[0]"),
        (
            _body(metadata={"addresses": [A1, A2, "0x" + "c" * 40, "0x" + "d" * 40]}),
            "metadata.addresses",
        ),
        (_body(metadata={}), "metadata.addresses"),
        (
            _body(metadata={"addresses": [A1], "eventSignatures": ["0x1"]}),
            "metadata.eventSignatures[0]",
        ),
        (_body(includeLogs="maybe"), "includeLogs"),
        ([1, 2], "body"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(keyed, body: Any, field: str) -> None:
    c, mine, _ = keyed
    r = c.post("/v1/webhooks", json=body, headers=mine)
    assert r.status_code == 400, r.text
    err = r.json()
    assert err["statusCode"] == 400 and err["error"] == "Bad Request"
    assert err["message"].startswith(f"{field}:"), err["message"]


def test_too_many_addresses_added_is_a_400(keyed) -> None:
    c, mine, _ = keyed
    wid = c.post("/v1/webhooks", json=_body(), headers=mine).json()["id"]
    more = ["0x" + f"{i:040x}" for i in range(3)]
    r = c.patch(f"/v1/webhooks/{wid}/addresses", json={"addresses": more}, headers=mine)
    assert r.status_code == 400 and r.json()["message"].startswith("addresses:")
    r = c.patch(f"/v1/webhooks/{wid}", json={"url": "gopher://x"}, headers=mine)
    assert r.status_code == 400 and r.json()["message"].startswith("url:")


def test_private_receivers_refused_when_the_server_is_exposed(tmp_path: Path, store) -> None:
    _db, url = _private_store(tmp_path, store[0])
    writer = create_engine(url)
    key, _ = create_key(writer, "k", None)
    writer.dispose()
    settings = Settings(db_url=url, page_token_secret="webhooks-secret-0123", host="0.0.0.0")
    assert settings.refuses_private_targets()
    headers = {"x-glacier-api-key": key}
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        for target in (
            "http://127.0.0.1/x",
            "http://10.1.2.3/x",
            "http://localhost:8/x",
            "http://[::1]/x",
            "http://169.254.169.254/latest",
        ):
            r = c.post("/v1/webhooks", json=_body(url=target), headers=headers)
            assert r.status_code == 400 and r.json()["message"].startswith("url:"), target
        ok = c.post("/v1/webhooks", json=_body(url="https://example.com/hook"), headers=headers)
        assert ok.status_code == 201
    allowed = settings.model_copy(update={"webhook_private_targets": "allow"})
    assert not allowed.refuses_private_targets()


def test_a_webhooks_stream_is_its_owners_and_resumes(tmp_path: Path, store) -> None:
    """GET /v1/events/stream?webhookId=: the webhook's own filter; another key gets 404; a
    reconnect with Last-Event-ID continues after it."""
    import json

    import httpx

    from tests.api.synthetic import ERC1155
    from tests.support.server import serving

    _db, url = _private_store(tmp_path, store[0])
    writer = create_engine(url)
    mine, _ = create_key(writer, "mine", None)
    theirs, _ = create_key(writer, "theirs", None)
    writer.dispose()
    chain = store[1]
    wanted = sorted({(t.block_number, t.tx_index) for t in chain.transfers if t.token == ERC1155})
    settings = Settings(db_url=url, page_token_secret="webhooks-secret-0123", webhook_poll_s=0.05)
    with serving(create_app(settings)) as base, httpx.Client(timeout=20) as http:
        body = _body(metadata={"addresses": [ERC1155]})
        wid = http.post(f"{base}/v1/webhooks", json=body, headers={"x-glacier-api-key": mine})
        stream = f"{base}/v1/events/stream?webhookId={wid.json()['id']}&fromBlock=0"
        other = http.get(stream, headers={"x-glacier-api-key": theirs})
        assert other.status_code == 404

        def read(count: int, last: str | None) -> list[str]:
            headers = {"x-glacier-api-key": mine, **({"Last-Event-ID": last} if last else {})}
            ids: list[str] = []
            with http.stream("GET", stream, headers=headers) as r:
                for line in r.iter_lines():
                    if line.startswith("id: "):
                        ids.append(line[4:])
                    elif line.startswith("data: "):
                        assert json.loads(line[6:])["webhookId"] == wid.json()["id"]
                    if len(ids) == count and line == "":
                        break
            return ids

        first = read(2, None)
        rest = read(len(wanted) - 2, first[-1])
        assert first + rest == [f"{b}-{i}" for b, i in wanted]

        # Bounded streams end by themselves: after maxEvents events, or maxSeconds.
        own = {"x-glacier-api-key": mine}
        two = http.get(f"{stream}&maxEvents=2", headers=own).text.splitlines()
        assert [line[4:] for line in two if line.startswith("id: ")] == first
        quiet = http.get(f"{stream}&maxSeconds=0.1&lastEventId={rest[-1]}", headers=own)
        assert quiet.status_code == 200 and "id: " not in quiet.text
        bare = f"{base}/v1/events/stream?webhookId={wid.json()['id']}"
        for bad in ("maxEvents=0", "maxSeconds=0", "maxSeconds=nan", "lastEventId=%D9%A1-2"):
            r = http.get(f"{bare}&{bad}", headers=own)
            assert r.status_code == 400, bad
            assert r.json()["message"].startswith(bad.split("=")[0]), r.text
        r = http.get(bare, headers={**own, "Last-Event-ID": "7-x"})
        assert r.status_code == 400 and r.json()["message"].startswith("Last-Event-ID"), r.text
