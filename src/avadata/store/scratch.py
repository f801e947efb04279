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

from avadata.store.engine import make_engine

_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


@contextmanager
def scratch_schema(url: str, name: str) -> Iterator[str]:
    """Yield a URL of `url`'s database whose tables go to the schema `name`, created empty
    (dropped first if an interrupted run left it) and dropped with its contents on exit."""
    if not _NAME.match(name):
        raise ValueError(f"not a plain schema name: {name!r}")
    admin = make_engine(url)
    try:
        _recreate(admin, name)
        u = make_url(url)
        query = dict(u.query)
        query["options"] = f"-csearch_path={name}"
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
