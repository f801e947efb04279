"""Database URL -> SQLAlchemy Engine, for the writer (the indexer) and for readers (the API).

Stage: store. The per-engine details (driver, SQLite PRAGMAs with their reasons, read-only
sessions) live in `dialect.py`; this module only assembles them.

URLs: `sqlite:///relative/path.db`, `sqlite:////absolute/path.db`, `postgresql://user@host/db`
(served by psycopg 3).
"""

from __future__ import annotations

from sqlalchemy import Engine, create_engine
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from avadata.store import dialect


def make_engine(url: str, *, read_only: bool = False) -> Engine:
    """Build an Engine for `url`.

    A writer engine (the default) begins every SQLite transaction with BEGIN IMMEDIATE, so use
    one per writing process. `read_only=True` gives an engine whose sessions cannot write
    (SQLite opened mode=ro plus query_only; PostgreSQL default_transaction_read_only), for the
    API; on SQLite the file must already exist (run `migrate` with a writer engine first).
    """
    sa_url = dialect.normalize_url(url, read_only=read_only)
    engine = create_engine(sa_url, **dialect.engine_kwargs(sa_url, read_only=read_only))
    dialect.install_hooks(engine, read_only=read_only)
    return engine


def make_async_reader_engine(url: str) -> AsyncEngine:
    """A reader engine whose connections wait on the event loop: its `sync_engine` is used
    from sync code run by `sqlalchemy.util.greenlet_spawn` (store/loop_readers.py), PostgreSQL
    only."""
    sa_url = dialect.normalize_url(url, read_only=True)
    kwargs = dialect.engine_kwargs(sa_url, read_only=True, for_bodies=True)
    engine = create_async_engine(sa_url, **kwargs)
    dialect.install_hooks(engine.sync_engine, read_only=True)
    return engine


def make_reader_engine(url: str) -> Engine:
    """The API's engine: `make_engine(url, read_only=True)`."""
    return make_engine(url, read_only=True)
