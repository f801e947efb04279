"""Paging: walking every page gives exactly the one-page answer; tokens are bound to their
query, and tampered, foreign or unknown tokens get a 400 that says which."""

from __future__ import annotations

import base64

import pytest

from tests.api.http import TestClient
from tests.api.routes import LISTS, A, C


def walk(client: TestClient, path: str, key: str, size: int, **params: object) -> list[dict]:
    items: list[dict] = []
    token = None
    for _ in range(1000):
        q = {**params, "pageSize": size}
        if token is not None:
            q["pageToken"] = token
        resp = client.get(path, params=q)
        assert resp.status_code == 200, resp.text
        body = resp.json()
        assert "nextPageToken" not in body or isinstance(body["nextPageToken"], str)
        assert len(body[key]) <= size
        items.extend(body[key])
        token = body.get("nextPageToken")
        if token is None:
            return items
    raise AssertionError("no last page")


@pytest.mark.parametrize("path,key,limit", LISTS)
@pytest.mark.parametrize("size", [1, 3])
def test_walk_equals_one_page(client: TestClient, path: str, key: str, limit: int, size: int):
    whole = client.get(path, params={"pageSize": limit}).json()
    assert "nextPageToken" not in whole
    walked = walk(client, path, key, size)
    assert walked == whole[key]
    assert len(walked) > 0, f"{path}: the synthetic chain should give this route some rows"


def test_block_transactions_page_size_zero_is_whole_block(client: TestClient) -> None:
    whole = client.get(f"{C}/blocks/7/transactions").json()
    assert "nextPageToken" not in whole
    assert [t["blockIndex"] for t in whole["transactions"]] == [0, 1, 2]
    assert walk(client, f"{C}/blocks/7/transactions", "transactions", 1) == whole["transactions"]


def test_walk_with_block_range(client: TestClient) -> None:
    path = f"{A}/transactions:listErc20"
    ranged = walk(client, path, "transactions", 2, startBlock=5, endBlock=17)
    numbers = {int(t["blockNumber"]) for t in ranged}
    assert numbers and min(numbers) >= 5 and max(numbers) < 17
    full = walk(client, path, "transactions", 100)
    assert ranged == [t for t in full if 5 <= int(t["blockNumber"]) < 17]


def _first_token(client: TestClient, path: str, **params: object) -> str:
    body = client.get(path, params={"pageSize": 1, **params}).json()
    return str(body["nextPageToken"])


def _message(resp) -> str:
    assert resp.status_code == 400, resp.text
    return str(resp.json()["message"])


def test_token_with_other_params_is_400(client: TestClient) -> None:
    path = f"{A}/transactions:listErc20"
    token = _first_token(client, path, startBlock=2)
    msg = _message(client.get(path, params={"pageToken": token, "startBlock": 3}))
    assert "other query parameters" in msg
    # The same parameters, the default sent explicitly or not, are accepted.
    assert client.get(path, params={"pageToken": token, "startBlock": 2}).status_code == 200


def test_token_of_another_route_is_400(client: TestClient) -> None:
    token = _first_token(client, f"{A}/transactions:listErc20")
    msg = _message(client.get(f"{A}/transactions:listErc721", params={"pageToken": token}))
    assert "other query parameters" in msg


def test_token_of_another_address_is_400(client: TestClient) -> None:
    token = _first_token(client, f"{A}/transactions:listErc20")
    other = f"{C}/addresses/0x{'b0' * 20}/transactions:listErc20"
    assert "other query parameters" in _message(client.get(other, params={"pageToken": token}))


def test_tampered_token_is_400(client: TestClient) -> None:
    path = f"{C}/blocks"
    token = _first_token(client, path)
    raw = bytearray(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    raw[3] ^= 0x01  # inside the position: the MAC no longer verifies
    forged = base64.urlsafe_b64encode(bytes(raw)).rstrip(b"=").decode()
    assert "tampered" in _message(client.get(path, params={"pageToken": forged}))


def test_token_under_another_secret_is_400(store, client: TestClient) -> None:
    from avadata.api.app import create_app
    from avadata.settings import Settings

    token = _first_token(client, f"{C}/blocks")
    other = create_app(Settings(db_url=store[0], page_token_secret="another-secret-xyz"))
    with TestClient(other) as c2:
        assert "tampered" in _message(c2.get(f"{C}/blocks", params={"pageToken": token}))


@pytest.mark.parametrize("token", ["abc", "%%%", "AQ", "AVsxXQ"])
def test_unknown_token_is_400(client: TestClient, token: str) -> None:
    assert "unknown" in _message(client.get(f"{C}/blocks", params={"pageToken": token}))


def test_changing_page_size_keeps_the_walk(client: TestClient) -> None:
    path = f"{C}/transactions"
    first = client.get(path, params={"pageSize": 2}).json()
    rest = client.get(path, params={"pageSize": 100, "pageToken": first["nextPageToken"]}).json()
    whole = client.get(path, params={"pageSize": 100}).json()["transactions"]
    assert first["transactions"] + rest["transactions"] == whole


def test_moved_token_is_the_same_query_at_another_position() -> None:
    from avadata.api.paging import PageCodec, params_digest

    codec = PageCodec(b"s" * 32)
    digest = params_digest("latest-txs", {"chain": 1, "status": None})
    first = codec.encode((90, 3), digest)
    assert codec.decode(codec.moved(first, (7, 1)), digest, arity=2) == (7, 1)
    with pytest.raises(ValueError):
        PageCodec(b"t" * 32).moved(first, (7, 1))  # another server's secret
    with pytest.raises(ValueError):
        codec.moved(first, ("x", 1))  # a position of another shape
