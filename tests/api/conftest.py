"""Fixtures of the API tests: one synthetic store per session, an app and a client on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from avadata.api.app import create_app
from avadata.settings import Settings
from tests.api.http import TestClient
from tests.api.synthetic import Chain, write_store


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
