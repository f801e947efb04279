"""One migration history, applied to an empty database, gives exactly schema.py on both engines."""

from __future__ import annotations

import threading

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from avadata.store import make_engine, migrate
from avadata.store.migrate import heads
from avadata.store.schema import metadata


def test_one_head():
    assert len(heads()) == 1


def test_upgrade_empty_database(empty_db_url):
    eng = make_engine(empty_db_url)
    try:
        migrate(eng)
        migrate(eng)  # idempotent: the second run finds the head and does nothing
        with eng.connect() as conn:
            names = set(inspect(conn).get_table_names())
            assert set(metadata.tables) <= names
            ctx = MigrationContext.configure(conn, opts={"compare_type": True})
            assert ctx.get_current_revision() == heads()[0]
            # The migrated database and schema.py agree on every table, column and index.
            diffs = compare_metadata(ctx, metadata)
            assert diffs == []
    finally:
        eng.dispose()


def test_concurrent_migrations_serialise(empty_db_url):
    """Several processes may start at once (indexer workers, API): all upgrades succeed."""
    engines = [make_engine(empty_db_url) for _ in range(3)]
    errors = []

    def run(eng):
        try:
            migrate(eng)
        except Exception as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(e,)) for e in engines]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert errors == []
        with engines[0].connect() as conn:
            ctx = MigrationContext.configure(conn)
            assert ctx.get_current_revision() == heads()[0]
    finally:
        for e in engines:
            e.dispose()
