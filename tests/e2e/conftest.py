"""Fixtures of the end-to-end suite: a fresh store per module, on SQLite or PostgreSQL."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from avadata.store.engine import make_engine
from avadata.store.migrate import migrate

_counter = itertools.count()


@pytest.fixture(scope="module")
def engine_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[], Engine]]:
    """Makes empty, migrated SQLite stores; each call a new file."""
    made: list[Engine] = []

    def make() -> Engine:
        path: Path = tmp_path_factory.mktemp("store") / f"e2e{next(_counter)}.db"
        engine = make_engine(f"sqlite:///{path}")
        migrate(engine)
        made.append(engine)
        return engine

    yield make
    for engine in made:
        engine.dispose()
