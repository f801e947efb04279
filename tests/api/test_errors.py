"""Every route answers bad input with the seed's error body: 400 naming the parameter, 404 for
unknown chains, blocks and routes; never 422 and never 500."""

from __future__ import annotations

import pytest

from tests.api.http import TestClient
from tests.api.routes import ADDRESS_ROUTES, LISTS, SINGLES, A, C
from tests.api.synthetic import BLOCKCHAIN_ID, CHAIN_ID


def assert_error(resp, status: int, *needles: str) -> None:
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"] == "application/json"
    body = resp.json()
    assert set(body) == {"message", "error", "statusCode"}
    assert body["statusCode"] == status
    names = {400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed"}
    assert body["error"] == names[status]
    assert "Traceback" not in body["message"]
    for needle in needles:
        assert needle in body["message"], body["message"]


@pytest.mark.parametrize("path", [p for p, _, _ in LISTS] + SINGLES)
def test_ok_and_json(client: TestClient, path: str) -> None:
    resp = client.get(path)
    assert resp.status_code == 200, resp.text
    assert resp.headers["content-type"] == "application/json"


@pytest.mark.parametrize("path", [p for p, _, _ in LISTS] + SINGLES[1:])
def test_unknown_chain_is_404(client: TestClient, path: str) -> None:
    other = path.replace(f"/v1/chains/{CHAIN_ID}", "/v1/chains/999999")
    assert_error(client.get(other), 404, "chainId")
    by_name = path.replace(f"/v1/chains/{CHAIN_ID}", "/v1/chains/notAChain")
    assert_error(client.get(by_name), 404, "chainId")


@pytest.mark.parametrize("path", [p for p, _, _ in LISTS])
def test_chain_by_blockchain_id(client: TestClient, path: str) -> None:
    resp = client.get(path.replace(f"/v1/chains/{CHAIN_ID}", f"/v1/chains/{BLOCKCHAIN_ID}"))
    assert resp.status_code == 200, resp.text
    assert resp.json() == client.get(path).json()


@pytest.mark.parametrize("path,key,limit", LISTS)
@pytest.mark.parametrize("bad", ["abc", "-1", "1.5", "BIG", ""])
def test_bad_page_size_is_400(
    client: TestClient, path: str, key: str, limit: int, bad: str
) -> None:
    value = str(limit + 1) if bad == "BIG" else bad
    if path.endswith("/blocks/7/transactions") and bad == "":
        return
    resp = client.get(path, params={"pageSize": value})
    assert_error(resp, 400, "pageSize")


@pytest.mark.parametrize("path,key,limit", LISTS)
def test_page_size_bounds_accepted(client: TestClient, path: str, key: str, limit: int) -> None:
    low = 0 if path.endswith("/blocks/7/transactions") else 1
    for size in (low, limit):
        assert client.get(path, params={"pageSize": size}).status_code == 200
    if low == 1:
        assert_error(client.get(path, params={"pageSize": 0}), 400, "pageSize", ">= 1")


@pytest.mark.parametrize("prefix,suffix", ADDRESS_ROUTES)
@pytest.mark.parametrize("bad", ["0x12", "alice", "0x" + "g" * 40, "0x" + "1" * 41])
def test_bad_address_is_400(client: TestClient, prefix: str, suffix: str, bad: str) -> None:
    assert_error(client.get(prefix + bad + suffix), 400, "address")


@pytest.mark.parametrize("path", [p for p, _, _ in LISTS])
@pytest.mark.parametrize("token", ["abc", "!!!", "AAAA", "x" * 300])
def test_unknown_token_is_400(client: TestClient, path: str, token: str) -> None:
    if path.endswith("/blocks/7/transactions"):
        resp = client.get(path, params={"pageToken": token, "pageSize": 2})
    else:
        resp = client.get(path, params={"pageToken": token})
    assert_error(resp, 400, "pageToken")


@pytest.mark.parametrize(
    "path,param,value",
    [
        (f"/v1/chains/{CHAIN_ID}/transactions", "status", "pending"),
        (f"{A}/balances:listErc20", "currency", "USD"),
        (f"{A}/balances:listErc20", "currency", "btc"),
        (
            f"{A}/balances:listErc20",
            "filterSpamTokens",
            "maybe",
        ),
        (
            f"{A}/balances:listErc20",
            "blockNumber",
            "latest",
        ),
        (
            f"{A}/balances:listErc20",
            "contractAddresses",
            "0x12,0x34",
        ),
        (
            f"{A}/balances:listErc721",
            "contractAddress",
            "nope",
        ),
        (
            f"{A}/transactions:listErc20",
            "startBlock",
            "x",
        ),
        (f"{A}/transactions:listErc20", "endBlock", "-3"),
        ("/v1/chains", "network", "devnet"),
        ("/v1/chains", "feature", "everything"),
    ],
)
def test_bad_query_value_is_400(client: TestClient, path: str, param: str, value: str) -> None:
    assert_error(client.get(path, params={param: value}), 400, param)


@pytest.mark.parametrize("param", ["startBlock", "endBlock"])
@pytest.mark.parametrize("value", [str(2**63), "99999999999999999999999"])
def test_block_beyond_int64_is_400(client: TestClient, param: str, value: str) -> None:
    for suffix in ("transactions:listErc20", "transactions:listInternals"):
        assert_error(client.get(f"{A}/{suffix}", params={param: value}), 400, param, "<=")
    assert_error(client.get(f"{C}/tokens/{A[-42:]}/transfers", params={param: value}), 400)


def test_start_after_end_is_400(client: TestClient) -> None:
    path = f"{A}/transactions:listInternals"
    assert_error(client.get(path, params={"startBlock": 9, "endBlock": 3}), 400, "startBlock")


@pytest.mark.parametrize("block_id", ["999999", "0x" + "ab" * 32])
def test_unknown_block_is_404(client: TestClient, block_id: str) -> None:
    assert_error(
        client.get(f"/v1/chains/{CHAIN_ID}/blocks/{block_id}/transactions"), 404, "blockId"
    )


@pytest.mark.parametrize("block_id", ["abc", "0x12", "-1"])
def test_bad_block_id_is_400(client: TestClient, block_id: str) -> None:
    assert_error(
        client.get(f"/v1/chains/{CHAIN_ID}/blocks/{block_id}/transactions"), 400, "blockId"
    )


@pytest.mark.parametrize(
    "path",
    [
        "/v1",
        "/v1/nothing",
        "/dashboard/nothing.js",
        "/dashboard/../app.py",
        f"/v1/chains/{CHAIN_ID}/whatever",
        "/v2/unknown",
    ],
)
def test_unknown_route_is_404(client: TestClient, path: str) -> None:
    assert_error(client.get(path), 404)


def test_wrong_method_has_the_error_shape(client: TestClient) -> None:
    assert_error(client.post(f"/v1/chains/{CHAIN_ID}/blocks"), 405)


def test_unexpected_exception_is_a_bare_500(store) -> None:
    from avadata.api.app import create_app
    from avadata.settings import Settings

    app = create_app(Settings(db_url=store[0], page_token_secret="x" * 20))

    @app.get("/boom")
    def boom() -> None:
        raise RuntimeError("secret detail")

    with TestClient(app, raise_server_exceptions=False) as c:
        resp = c.get("/boom")
    assert resp.status_code == 500
    assert resp.json() == {
        "message": "internal error",
        "error": "Internal Server Error",
        "statusCode": 500,
    }
