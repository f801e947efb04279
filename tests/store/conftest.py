"""The store's conformance fixtures: every test taking `engine` runs on SQLite and PostgreSQL.

- `pg_cluster` (session): the throwaway PostgreSQL 15 cluster (tests/support/pg_cluster.py's
  `shared()`);
- `db_url` (function, parametrized [sqlite, postgres]): a fresh, migrated, empty database;
  Postgres clones a template migrated once per session (CREATE DATABASE ... TEMPLATE), SQLite
  copies a migrated file, so each test starts clean in milliseconds;
- `engine`: a writer Engine on `db_url`, disposed after the test;
- `empty_db_url`: like `db_url` but not migrated (for the migration tests).
"""

from __future__ import annotations

import functools
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from avadata.store.engine import make_engine
from avadata.store.migrate import migrate
from tests.support import pg_cluster as pgc

ENGINES = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
]


@pytest.fixture(scope="session")
def pg_cluster() -> pgc.PgCluster:
    # CI and `make test` have the binaries; their absence is a setup failure, not a skip.
    assert pgc.available(), "PostgreSQL 15 binaries (initdb, pg_ctl) not found"
    # Modules elsewhere re-export these fixtures, each copy a fixture of its own: they all get
    # the one cluster (stopped at exit) and its one template.
    return pgc.shared()


@functools.cache
def _migrated_template(cluster: pgc.PgCluster) -> str:
    name = cluster.create_database("avadata_template")
    eng = make_engine(cluster.url(name))
    try:
        migrate(eng)
    finally:
        eng.dispose()
    return name


@pytest.fixture(scope="session")
def pg_template(pg_cluster: pgc.PgCluster) -> str:
    """A database migrated to head, cloned by each Postgres test."""
    return _migrated_template(pg_cluster)


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sqlite-template") / "template.db"
    eng = make_engine(f"sqlite:///{path}")
    try:
        migrate(eng)
    finally:
        # Closing the last connection checkpoints the WAL into the file and removes it.
        eng.dispose()
    assert not path.with_name(path.name + "-wal").exists()
    return path


@pytest.fixture(params=ENGINES)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        template: Path = request.getfixturevalue("sqlite_template")
        path = tmp_path / "store.db"
        shutil.copyfile(template, path)
        yield f"sqlite:///{path}"
        return
    cluster: pgc.PgCluster = request.getfixturevalue("pg_cluster")
    template_name: str = request.getfixturevalue("pg_template")
    name = cluster.create_database(template=template_name)
    try:
        yield cluster.url(name)
    finally:
        cluster.drop_database(name)


@pytest.fixture(params=ENGINES)
def empty_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.db'}"
        return
    cluster: pgc.PgCluster = request.getfixturevalue("pg_cluster")
    name = cluster.create_database()
    try:
        yield cluster.url(name)
    finally:
        cluster.drop_database(name)


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    eng = make_engine(db_url)
    try:
        yield eng
    finally:
        eng.dispose()
