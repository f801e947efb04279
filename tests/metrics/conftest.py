"""The store's engine fixtures ([sqlite, postgres]), shared with tests/store."""

from tests.store.conftest import (  # noqa: F401
    db_url,
    engine,
    pg_cluster,
    pg_template,
    sqlite_template,
)
