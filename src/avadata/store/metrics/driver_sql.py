"""Driver SQL for the rollup's hot paths, spelled alike on SQLite and PostgreSQL.

Stage: store (the metrics rollup's reads and writes). SQLAlchemy's per-row parameter processing
costs ~20 us a row, several times the database's own work, so the statements that move
thousands of rows per batch are written here as multi-row driver SQL. The driver's placeholder
differs (qmark for sqlite3, %s for psycopg), read from the DBAPI's declared paramstyle; so do
the inserts' row sources (`dialect.rows_source`: a VALUES list on SQLite, arrays unnested on
PostgreSQL). Plain integer and text columns only (never U256).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy import Connection

from avadata.store.dialect import rows_source
from avadata.store.schema import metadata


def mark(conn: Connection) -> str:
    """The driver's positional placeholder."""
    return "?" if conn.dialect.paramstyle == "qmark" else "%s"


# Keys per IN (...) lookup: far below SQLite's bound-parameter limit.
_KEYS_PER_LOOKUP = 500


def chunks(items: Sequence[Any], n: int = _KEYS_PER_LOOKUP) -> Iterator[Sequence[Any]]:
    """`items` in runs of `n` (the keys of one IN (...) lookup)."""
    for i in range(0, len(items), n):
        yield items[i : i + n]


# Rows per multi-row INSERT: 1,000 x 5 parameters stays under SQLite's 32,766 bound values.
_ROWS_PER_INSERT = 1_000


def insert_new(
    conn: Connection,
    table: str,
    columns: Sequence[str],
    rows: Sequence[tuple[Any, ...]],
    returning: Sequence[str],
) -> list[tuple[Any, ...]]:
    """INSERT .. ON CONFLICT DO NOTHING RETURNING, one multi-row statement per 1,000 rows:
    the returned rows are exactly the new ones."""
    if not rows:
        return []
    cols = ", ".join(f'"{c}"' for c in columns)
    ret = ", ".join(f'"{c}"' for c in returning)
    out: list[tuple[Any, ...]] = []
    for i in range(0, len(rows), _ROWS_PER_INSERT):
        source, params = rows_source(
            conn, metadata.tables[table], columns, rows[i : i + _ROWS_PER_INSERT]
        )
        sql = f'INSERT INTO "{table}" ({cols}) {source} ON CONFLICT DO NOTHING RETURNING {ret}'
        out.extend(tuple(r) for r in conn.exec_driver_sql(sql, params).all())
    return out


def upsert_max(
    conn: Connection,
    table: str,
    keys: Sequence[str],
    value: str,
    rows: Sequence[tuple[Any, ...]],
) -> None:
    """INSERT rows (keys..., value); on conflict keep the larger value."""
    if not rows:
        return
    cols = ", ".join(f'"{c}"' for c in (*keys, value))
    conflict = ", ".join(f'"{k}"' for k in keys)
    for i in range(0, len(rows), _ROWS_PER_INSERT):
        part = rows[i : i + _ROWS_PER_INSERT]
        source, params = rows_source(conn, metadata.tables[table], (*keys, value), part)
        sql = (
            f'INSERT INTO "{table}" ({cols}) {source} '
            f'ON CONFLICT ({conflict}) DO UPDATE SET "{value}" = excluded."{value}" '
            f'WHERE excluded."{value}" > "{table}"."{value}"'
        )
        conn.exec_driver_sql(sql, params)


def select_in(
    conn: Connection,
    table: str,
    columns: Sequence[str],
    fixed: dict[str, Any],
    key: str,
    values: Sequence[Any],
) -> list[tuple[Any, ...]]:
    """SELECT columns FROM table WHERE fixed... AND key IN (values), 500 values a statement."""
    ph = mark(conn)
    cols = ", ".join(f'"{c}"' for c in columns)
    where = " AND ".join(f'"{c}" = {ph}' for c in fixed)
    out: list[tuple[Any, ...]] = []
    for part in chunks(values):
        sql = (
            f'SELECT {cols} FROM "{table}" WHERE {where} AND "{key}" IN '
            f"({', '.join([ph] * len(part))})"
        )
        out.extend(tuple(r) for r in conn.exec_driver_sql(sql, (*fixed.values(), *part)).all())
    return out
