"""Rows each writer handed to the store, per source and table: GET /metrics's
`avadata_rows_written_total`.

Stage: store. The indexer is another process than `avadata serve`, so the counts live in the
store (`metric_rows_written`), raised once per write transaction (one statement, whatever the
batch's size) and read at scrape time by any API process. Inserts are insert-or-ignore, so a
replayed batch counts again: these are rows written, not rows stored.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import Connection, select

from avadata.store import dialect
from avadata.store.schema import metric_rows_written

_R = metric_rows_written.c


def count(conn: Connection, source: str, rows: Mapping[str, int]) -> None:
    """Add `rows` (table -> rows written) to `source`'s counters, in the caller's transaction."""
    values = [(source, table, n) for table, n in sorted(rows.items()) if n]
    dialect.add_up(conn, metric_rows_written, _KEYS, (*_KEYS, "rows"), values, ("rows",))


_KEYS = ("source", "table_name")


def read(conn: Connection) -> list[tuple[str, str, int]]:
    """(source, table, rows written) of every counter."""
    q = select(_R.source, _R.table_name, _R.rows).order_by(_R.source, _R.table_name)
    return [(str(s), str(t), int(n)) for s, t, n in conn.execute(q)]
