"""Database URL -> SQLAlchemy Engine, for the writer (the indexer) and for readers (the API).

Stage: store. The per-engine details (driver, SQLite PRAGMAs with their reasons, read-only
sessions) live in `dialect.py`; this module only assembles them.

URLs: `sqlite:///relative/path.db`, `sqlite:////absolute/path.db`, `postgresql://user@host/db`
(served by psycopg 3).
"""

from __future__ import annotations

from sqlalchemy import Engine, create_engine

from avadata.store import dialect


def make_engine(url: str, *, read_only: bool = False, generic_plans: bool = False) -> Engine:
    """Build an Engine for `url`.

    A writer engine (the default) begins every SQLite transaction with BEGIN IMMEDIATE, so use
    one per writing process. `read_only=True` gives an engine whose sessions cannot write
    (SQLite opened mode=ro plus query_only; PostgreSQL default_transaction_read_only), for the
    API; on SQLite the file must already exist (run `migrate` with a writer engine first).
    `generic_plans` (with `read_only`): see `make_pages_engine`.
    """
    sa_url = dialect.normalize_url(url, read_only=read_only)
    kwargs = dialect.engine_kwargs(sa_url, read_only=read_only, generic_plans=generic_plans)
    engine = create_engine(sa_url, **kwargs)
    dialect.install_hooks(engine, read_only=read_only)
    return engine


def make_reader_engine(url: str) -> Engine:
    """The API's engine: `make_engine(url, read_only=True)`."""
    return make_engine(url, read_only=True)


def make_pages_engine(url: str, reader: Engine) -> Engine:
    """The engine of the API's store-bound route bodies (keyset pages and point reads), given
    the app's `reader` on the same `url`. On PostgreSQL a reader of its own whose sessions run
    every prepared statement on its generic plan (`dialect.engine_kwargs`), so that no page is
    planned anew at each request, while the app's other reads (the Metrics API, the
    middlewares) keep the planner's own choice; elsewhere (SQLite, no server-side plans)
    `reader` itself."""
    if dialect.queries_in_process(reader):
        return reader
    return make_engine(url, read_only=True, generic_plans=True)
