"""The same synthetic chain in PostgreSQL answers every list, page by page, exactly as SQLite
does (the store's two engines behind one API)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from avadata.api.app import create_app
from avadata.settings import Settings
from avadata.store.loop_readers import LoopReaders
from tests.api.http import TestClient
from tests.api.routes import LISTS, A
from tests.api.synthetic import build
from tests.api.test_paging import walk

pytestmark = [pytest.mark.postgres]


@pytest.fixture(scope="module")
def pg_client(pg_store: str) -> Iterator[TestClient]:
    app = create_app(Settings(db_url=pg_store, page_token_secret="test-secret-0123456789"))
    with TestClient(app) as c:
        yield c


def test_postgres_route_bodies_run_in_greenlets_on_the_loop(pg_client: TestClient) -> None:
    st = pg_client.app.state.avadata
    assert not st.inline and isinstance(st.readers, LoopReaders)


@pytest.fixture(scope="module")
def pg_inline(pg_store: str) -> Iterator[TestClient]:
    settings = Settings(
        db_url=pg_store, page_token_secret="test-secret-0123456789", api_inline_reads=True
    )
    with TestClient(create_app(settings)) as c:
        assert c.app.state.avadata.inline
        yield c


@pytest.mark.parametrize("path,key,limit", LISTS)
def test_inline_reads_on_postgres_read_the_same(
    pg_inline: TestClient, client: TestClient, path, key, limit
):
    """AVADATA_API_INLINE_READS: PostgreSQL reads on the event loop's one connection."""
    assert walk(pg_inline, path, key, 2) == walk(client, path, key, 2)


@pytest.mark.parametrize("path,key,limit", LISTS)
def test_same_pages_on_both_engines(pg_client: TestClient, client: TestClient, path, key, limit):
    assert walk(pg_client, path, key, 2) == walk(client, path, key, 2)
    # Same secret, same positions: the tokens themselves are identical.
    one = client.get(path, params={"pageSize": 1}).json()
    assert pg_client.get(path, params={"pageSize": 1}).json() == one


def test_balances_at_past_blocks(pg_client: TestClient, client: TestClient) -> None:
    for block in ("1", "2", "13", "29"):
        params = {"blockNumber": block, "filterSpamTokens": "false"}
        assert (
            pg_client.get(f"{A}/balances:listErc20", params=params).json()
            == client.get(f"{A}/balances:listErc20", params=params).json()
        )


def _singles() -> list[str]:
    from tests.api.synthetic import BOB, CAROL, CHAIN_ID, ERC20, ERC721, ERC1155

    chain = build()[0]
    c = f"/v1/chains/{CHAIN_ID}"
    created = chain.contracts[0].address
    return [
        f"{c}/blocks/7",
        f"{c}/blocks/{chain.blocks[9].hash}",
        *(f"{c}/transactions/{t.hash}" for t in chain.txs if t.block_number in (9, 21)),
        f"{A}/balances:getNative?blockNumber=12",
        f"{c}/addresses/{CAROL}/balances:listErc1155?blockNumber=11",
        f"{c}/addresses/{ERC20}",
        f"{c}/addresses/{created}",
        f"{c}/contracts/{created}/transactions:getDeployment",
        f"{c}/nfts/collections/{ERC721}/tokens/30",
        f"{c}/nfts/collections/{ERC1155}/tokens/{2**200}",
        f"/v1/address/{CAROL}/chains",
        "/v1/transactions?pageSize=7",
        "/v1/blocks?pageSize=7",
        f"/v2/chains/{CHAIN_ID}/addresses/{BOB}/transactions?sortOrder=asc",
        # The page and the native balance (one statement on PostgreSQL): whole bodies.
        f"{A}/balances:listErc721",
        f"{c}/addresses/{CAROL}/balances:listErc721?pageSize=1",
        f"{c}/addresses/{ERC20}/balances:listErc721",
    ]


@pytest.mark.parametrize("path", _singles())
def test_same_answers_on_both_engines(pg_client: TestClient, client: TestClient, path: str):
    mine = client.get(path)
    assert mine.status_code == 200, mine.text
    assert pg_client.get(path).json() == mine.json()
