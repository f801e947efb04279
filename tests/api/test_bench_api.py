"""`avadata bench api` measures real work: on a small bench store every endpoint it loads
answers 200 with a non-empty list, and its deep-page tokens (made by the bench, not the
server) land exactly where following the server's own nextPageToken lands; on PostgreSQL a few
endpoints send no more statements per request than they do today."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from avadata.api import deps, freshness
from avadata.api.app import create_app
from avadata.bench import api_load, api_store
from avadata.settings import Settings
from avadata.store.engine import make_engine
from avadata.store.keys import ensure_secret
from avadata.store.migrate import migrate
from tests.api.http import TestClient
from tests.support import pg_cluster as pgc

PAGE = 4


@pytest.fixture(
    scope="module",
    params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)],
)
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[TestClient, str]]:
    """The bench's store as the bench builds it: on SQLite by the writer, on PostgreSQL a
    segment of 1,000 transactions by the writer and two copies by the server (tiles.py)."""
    with contextlib.ExitStack() as stack:
        if request.param == "sqlite":
            url = f"sqlite:///{tmp_path_factory.mktemp('bench-api') / 'api.db'}"
        else:
            cluster = stack.enter_context(pgc.PgCluster())
            url = cluster.url(cluster.create_database("bench_api"))
        engine = make_engine(url)
        migrate(engine)
        api_store.build_fast(engine, 3_000, segment_txs=1_000)
        ensure_secret(engine)  # as `avadata serve` does before the bench reads it
        engine.dispose()
        with TestClient(create_app(Settings(db_url=url)), raise_server_exceptions=False) as c:
            yield c, url


def _items(body: dict[str, Any]) -> list[Any]:
    lists = [v for v in body.values() if isinstance(v, list)]
    assert len(lists) == 1, body.keys()
    return lists[0]


# The endpoints that answer one object, not a list.
_SINGLES = {
    "getBlock",
    "getTransaction",
    "getNativeBalance",
    "getDeploymentTransaction",
    "getContractMetadata (ERC-20)",
    "getTokenDetails",
    "chains",
    "listAddressChains",
}


def _deep(c: TestClient, url: str) -> dict[str, str]:
    return api_load.deep_tokens(url, PAGE, lambda path: c.get(path).json())


def test_every_endpoint_serves_a_non_empty_list(served: tuple[TestClient, str]) -> None:
    c, url = served
    for name, path in api_load.endpoints(_deep(c, url), PAGE, 30):
        r = c.get(path)
        assert r.status_code == 200, (name, r.text)
        body = r.json()
        if name in _SINGLES:
            assert body, name
        else:
            assert _items(body), name
    # The collectibles include the ERC-1155 holdings the bench store mints.
    held = c.get(
        f"/v1/chains/{api_store.CHAIN_ID}/addresses/{api_store.HOT}/balances:listErc1155"
    ).json()
    assert held["erc1155TokenBalances"]


_C = f"/v1/chains/{api_store.CHAIN_ID}"
_A = f"{_C}/addresses/{api_store.HOT}"


@pytest.mark.parametrize(
    "key,path,items",
    [
        ("transactions", f"{_C}/transactions", "transactions"),
        ("erc20", f"{_A}/transactions:listErc20", "transactions"),
        ("listTransactions", f"{_A}/transactions", "transactions"),
        (
            "listTransactionsV2",
            f"/v2/chains/{api_store.CHAIN_ID}/addresses/{api_store.HOT}/transactions",
            "transactions",
        ),
        ("listNative", f"{_A}/transactions:listNative", "transactions"),
        ("allTransactions", "/v1/transactions", "transactions"),
        ("allBlocks", "/v1/blocks", "blocks"),
    ],
)
def test_deep_token_lands_where_the_servers_tokens_do(
    served: tuple[TestClient, str], key: str, path: str, items: str
) -> None:
    c, url = served
    token = None
    deep = api_load.blocks_page(PAGE) if key == "allBlocks" else PAGE
    for _ in range(deep - 1):
        body = c.get(path, params={"pageToken": token} if token else {}).json()
        token = body["nextPageToken"]
    walked = c.get(path, params={"pageToken": token}).json()
    jumped = c.get(path, params={"pageToken": _deep(c, url)[key]}).json()
    assert jumped[items] == walked[items]


# Statements one warm request sends on PostgreSQL (psycopg's executes): each is a round trip
# and the server's bind and execute, what PostgreSQL costs per request beyond SQLite
# (docs/benchmarks.md, "Statements per request"). A change that adds one shows here.
_STATEMENTS = {
    "blocks": 1,
    "getBlock": 1,
    "block transactions (whole block)": 1,
    "getTransaction": 1,
    "listTransactions": 1,
    "listTransactionsV2": 1,
    "getNativeBalance": 1,
    "balances:listErc20": 2,
    "balances:listErc721": 1,
    "balances:listCollectibles": 2,
    "getDeploymentTransaction": 1,
    "getContractMetadata (ERC-20)": 1,
    "listAddressChains": 1,
    "chains": 0,
    "listLatestTransactionsAllChains": 1,
    "listLatestBlocksAllChains": 1,
}


def _counting(execute: Any, sent: list[str]) -> Any:
    def counted(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        sent.append(str(query))
        return execute(self, query, *args, **kwargs)

    return counted


def test_statements_per_request_on_postgres(
    served: tuple[TestClient, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    c, url = served
    if not url.startswith("postgresql"):
        pytest.skip("counts PostgreSQL's statements")
    paths = dict(api_load.endpoints(_deep(c, url), PAGE, 30))
    # What a process looks up once per interval, not per request: the chain's row, its head.
    monkeypatch.setattr(freshness, "TTL_S", 3600.0)
    monkeypatch.setattr(deps._ChainCache, "ttl_s", 3600.0)
    monkeypatch.setattr(deps._ChainCache, "list_ttl_s", 3600.0)
    sent: list[str] = []
    # Both kinds: the route bodies' connections are async ones (store/loop_readers.py), the
    # spares' (head lookups) sync.
    for cls in (psycopg.Cursor, psycopg.AsyncCursor):
        monkeypatch.setattr(cls, "execute", _counting(cls.execute, sent))
    for name, want in _STATEMENTS.items():
        assert c.get(paths[name]).status_code == 200  # warm: those lookups made
        sent.clear()
        assert c.get(paths[name]).status_code == 200
        assert len(sent) == want, (name, sent)
