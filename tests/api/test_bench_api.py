"""`avadata bench api` measures real work: on a small bench store every endpoint it loads
answers 200 with a non-empty list, and its deep-page tokens (made by the bench, not the
server) land exactly where following the server's own nextPageToken lands."""

from __future__ import annotations

from typing import Any

import pytest

from avadata.api.app import create_app
from avadata.bench import api_load, api_store
from avadata.settings import Settings
from avadata.store.engine import make_engine
from avadata.store.keys import ensure_secret
from avadata.store.migrate import migrate
from tests.api.http import TestClient

PAGE = 4


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> tuple[TestClient, str]:
    url = f"sqlite:///{tmp_path_factory.mktemp('bench-api') / 'api.db'}"
    engine = make_engine(url)
    migrate(engine)
    api_store.build(engine, 3_000)
    ensure_secret(engine)  # as `avadata serve` does before the bench reads it
    engine.dispose()
    with TestClient(create_app(Settings(db_url=url)), raise_server_exceptions=False) as c:
        yield c, url


def _items(body: dict[str, Any]) -> list[Any]:
    lists = [v for v in body.values() if isinstance(v, list)]
    assert len(lists) == 1, body.keys()
    return lists[0]


def test_every_endpoint_serves_a_non_empty_list(served: tuple[TestClient, str]) -> None:
    c, url = served
    deep = api_load.deep_tokens(url, PAGE)
    for name, path in api_load.endpoints(deep, PAGE, 30):
        r = c.get(path)
        assert r.status_code == 200, (name, r.text)
        assert _items(r.json()), name


@pytest.mark.parametrize(
    "key,path",
    [
        ("transactions", f"/v1/chains/{api_store.CHAIN_ID}/transactions"),
        (
            "erc20",
            f"/v1/chains/{api_store.CHAIN_ID}/addresses/{api_store.HOT}/transactions:listErc20",
        ),
    ],
)
def test_deep_token_lands_where_the_servers_tokens_do(
    served: tuple[TestClient, str], key: str, path: str
) -> None:
    c, url = served
    token = None
    for _ in range(PAGE - 1):
        body = c.get(path, params={"pageToken": token} if token else {}).json()
        token = body["nextPageToken"]
    walked = c.get(path, params={"pageToken": token}).json()
    jumped = c.get(path, params={"pageToken": api_load.deep_tokens(url, PAGE)[key]}).json()
    assert jumped["transactions"] == walked["transactions"]
