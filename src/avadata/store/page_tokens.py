"""The Metrics API's page tokens in the store (metric_page_tokens): token -> its stored query.

Stage: store. The API decides what a token means and how long it lives (api/metrics/tokens.py);
this module only reads and writes the rows. Writes take a writer engine: the API's own engine
is read-only.
"""

from __future__ import annotations

from sqlalchemy import Engine, delete, select

from avadata.store import dialect
from avadata.store.schema import metric_page_tokens

_T = metric_page_tokens.c


def created_at(engine: Engine, token: str) -> int | None:
    """When `token` was created, or None when it is not stored."""
    with engine.connect() as conn:
        row = conn.execute(select(_T.created_at).where(_T.token == token)).first()
    return None if row is None else int(row.created_at)


def find(engine: Engine, token: str) -> tuple[int, str] | None:
    """(created_at, query) of `token`, or None when it is not stored."""
    with engine.connect() as conn:
        row = conn.execute(select(_T.created_at, _T.query).where(_T.token == token)).first()
    return None if row is None else (int(row.created_at), str(row.query))


def insert(engine: Engine, token: str, now: int, query: str, *, purge_before: int | None) -> None:
    """Store `token` (a token already stored stays as it is); with `purge_before`, first drop
    the tokens created before that time."""
    with engine.begin() as conn:
        if purge_before is not None:
            conn.execute(delete(metric_page_tokens).where(_T.created_at < purge_before))
        conn.execute(
            dialect.insert_or_ignore(conn, metric_page_tokens).values(
                token=token, created_at=now, query=query
            )
        )
