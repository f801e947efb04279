"""Fixtures of the API tests: one synthetic store per session, an app and a client on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from avadata.api.app import create_app
from avadata.settings import Settings
from tests.api.http import TestClient
from tests.api.synthetic import Chain, write_store
from tests.support import pg_cluster as pgc


@pytest.fixture(scope="session")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Chain]:
    path: Path = tmp_path_factory.mktemp("api") / "store.db"
    return write_store(path)


@pytest.fixture(scope="session")
def client(store: tuple[str, Chain]) -> Iterator[TestClient]:
    settings = Settings(db_url=store[0], page_token_secret="test-secret-0123456789")
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        yield c


@pytest.fixture(scope="session")
def chain(store: tuple[str, Chain]) -> Chain:
    return store[1]


# The PostgreSQL store's leaves (store/partitions.py): blocks per leaf, and an empty chain
# beside the synthetic one whose leaves no list of the synthetic chain may read.
PG_LEAF_BLOCKS = 8
OTHER_CHAIN = 7


@pytest.fixture(scope="session")
def pg_store() -> Iterator[str]:
    """The same synthetic chain in a database of the throwaway PostgreSQL: its URL."""
    from avadata.store import partitions
    from avadata.store.engine import make_engine
    from avadata.store.migrate import migrate
    from avadata.store.writer import mark_chain, write_evm_batch
    from tests.api.synthetic import BLOCKCHAIN_ID, CHAIN_ID, build

    cluster = pgc.shared()
    name = cluster.create_database()
    try:
        url = cluster.url(name)
        engine = make_engine(url)
        migrate(engine)
        with engine.begin() as conn:
            # Leaves of a few blocks, and another chain's, so that the plans show pruning.
            partitions.ensure(conn, CHAIN_ID, 0, 0, width=PG_LEAF_BLOCKS)
            partitions.ensure(conn, OTHER_CHAIN, 0, 40, width=PG_LEAF_BLOCKS)
        for batch in build()[1]:
            write_evm_batch(engine, batch)
        mark_chain(
            engine, CHAIN_ID, name="Synthetic", blockchain_id=BLOCKCHAIN_ID, network="testnet"
        )
        engine.dispose()
        yield url
    finally:
        cluster.drop_database(name)
