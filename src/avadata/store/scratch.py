"""A throwaway store inside a PostgreSQL database: a schema of its own, dropped afterwards.

Stage: store. For the benchmarks that need a fresh store per round on a server the user
names (`avadata bench ingest --db postgresql://...`): a schema needs only the CREATE right on
that database, where a database per round would need CREATEDB; and dropping it touches
nothing else in the database.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError

from avadata.errors import StoreError
from avadata.store.engine import make_engine
from avadata.store.probe import explain
from avadata.store.urls import mask

_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


@contextmanager
def scratch_schema(url: str, name: str) -> Iterator[str]:
    """Yield a URL of `url`'s database whose tables go to the schema `name`, created empty
    (dropped first if an interrupted run left it) and dropped with its contents on exit.
    Raises StoreError (one line, naming the URL) when the database cannot be reached or the
    schema made there."""
    if not _NAME.match(name):
        raise ValueError(f"not a plain schema name: {name!r}")
    try:
        admin = make_engine(url)
    except (ArgumentError, ValueError) as exc:
        raise StoreError(f"--db {mask(url)!r} is not a PostgreSQL URL", exit_code=2) from exc
    try:
        _recreate(admin, name)
    except DBAPIError as exc:
        admin.dispose()
        raise StoreError(explain(url, exc)) from exc
    u = make_url(url)
    query = dict(u.query)
    # After the URL's own server options, if it has any (they stay in force).
    query["options"] = f"{query.get('options', '')} -csearch_path={name}".strip()
    try:
        yield u.set(query=query).render_as_string(hide_password=False)
    finally:
        try:
            with admin.begin() as conn:
                conn.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
        finally:
            admin.dispose()


def _recreate(admin: Engine, name: str) -> None:
    with admin.begin() as conn:
        conn.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
        conn.exec_driver_sql(f'CREATE SCHEMA "{name}"')


def check_scratch(url: str) -> None:
    """Raise StoreError now if `scratch_schema` could not make a schema in `url`'s database
    (a command checks before its long work, not after)."""
    with scratch_schema(url, "avadata_scratch_check"):
        pass
