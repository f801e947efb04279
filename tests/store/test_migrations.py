"""One migration history, applied to an empty database, gives exactly schema.py on both engines."""

from __future__ import annotations

import subprocess
import sys

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from avadata.store.engine import make_engine
from avadata.store.migrate import heads, migrate
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
    """Several processes may start at once (indexer workers, API): all upgrades succeed.

    Processes, not threads: Alembic keeps its migration context in module globals, so threads of
    one process would share it, which no deployment does.
    """
    code = (
        "import sys\n"
        "from avadata.store.engine import make_engine\n"
        "from avadata.store.migrate import migrate\n"
        "migrate(make_engine(sys.argv[1]))\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, empty_db_url], stderr=subprocess.PIPE)
        for _ in range(3)
    ]
    errors = [p.communicate(timeout=120)[1].decode() for p in procs if p.wait(timeout=120) != 0]
    assert errors == []
    eng = make_engine(empty_db_url)
    try:
        with eng.connect() as conn:
            ctx = MigrationContext.configure(conn)
            assert ctx.get_current_revision() == heads()[0]
    finally:
        eng.dispose()
