"""Read the rollup rows behind one rolling-window value (metrics/rolling.py holds the windows
and the arithmetic).

Stage: store (reads metric_sums and metric_last_seen only, as `avadata metrics rebuild`
recomputes them). A window costs a few index seeks per chain whatever its length: the newest
row and the last row before the window (their running totals), or one MAX over the window's
rows of one column.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, func, select

from avadata.metrics.buckets import Interval
from avadata.metrics.rolling import RUNNING_FIELDS, ChainWindow, Running
from avadata.metrics.rollup import Stamp
from avadata.metrics.series import Scope
from avadata.metrics.sums import Number
from avadata.store.metrics.driver_sql import mark
from avadata.store.schema import metric_last_seen, metric_sums

_S = metric_sums.c
_RUNNING = ", ".join(
    f'"{c}"' for c in ("bucket", *(f"run_{f}" for f in RUNNING_FIELDS), "last_ts", "last_ms")
)
# Driver SQL, as series_reads.select_rows: building a SQLAlchemy statement per lookup cost
# several times the database's index seek, and a request makes about ten of them.
_CHAIN = f'FROM "{metric_sums.name}" WHERE "chain_id" = {{ph}} AND "interval" = {{ph}}'
_NEWEST = f'SELECT {_RUNNING} {_CHAIN} ORDER BY "bucket" DESC LIMIT 1'
_BEFORE = f'SELECT {_RUNNING} {_CHAIN} AND "bucket" < {{ph}} ORDER BY "bucket" DESC LIMIT 1'
_FIRST = f'SELECT "first_ts", "first_ms" {_CHAIN} ORDER BY "bucket" LIMIT 1'
_LARGEST = f'SELECT MAX("{{column}}") {_CHAIN} AND "bucket" BETWEEN {{ph}} AND {{ph}}'


def _one(conn: Connection, sql: str, params: tuple[Any, ...]) -> Sequence[Any] | None:
    return conn.exec_driver_sql(sql.format(ph=mark(conn)), params).first()


def _running(r: Sequence[Any]) -> Running:
    """A row of _RUNNING; U256 totals arrive as the engine stores them (an int, text or
    NUMERIC), ints here."""
    n = len(RUNNING_FIELDS)
    totals = tuple(int(v) for v in r[1 : 1 + n])
    last_ms = None if r[n + 2] is None else int(r[n + 2])
    return Running(int(r[0]), totals, (int(r[n + 1]), last_ms))


def newest_rows(conn: Connection, scope: Scope, interval: Interval) -> dict[int, Running]:
    """Each chain's newest row of `interval` (one index seek per chain; chains without rows
    are left out)."""
    out: dict[int, Running] = {}
    for chain_id in scope.chain_ids:
        r = _one(conn, _NEWEST, (chain_id, interval.code))
        if r is not None:
            out[chain_id] = _running(r)
    return out


def first_blocks(conn: Connection, chain_ids: list[int]) -> dict[int, Stamp]:
    """Each chain's first rolled-up block's time (its oldest day's first block)."""
    out: dict[int, Stamp] = {}
    for chain_id in chain_ids:
        r = _one(conn, _FIRST, (chain_id, Interval.DAY.code))
        if r is not None and r[0] is not None:
            out[chain_id] = (int(r[0]), None if r[1] is None else int(r[1]))
    return out


def chain_windows(
    conn: Connection,
    newest: dict[int, Running],
    starts: dict[int, Stamp],
    interval: Interval,
    first: int | None,
) -> list[ChainWindow]:
    """Per chain with rows: its newest row, its last row before bucket `first` (None: every
    bucket) and its first block's time."""
    out = []
    for chain_id, row in newest.items():
        before = None
        if first is not None:
            r = _one(conn, _BEFORE, (chain_id, interval.code, first))
            before = None if r is None else _running(r)
        out.append(ChainWindow(row, before, starts[chain_id]))
    return out


def largest(
    conn: Connection, scope: Scope, interval: Interval, column: str, first: int | None, newest: int
) -> Number | None:
    """The largest value of `column` (max_tps, max_gps, gas_price_max) over the scope's buckets
    in [first, newest] (None: no row). SQL's MAX is exact for U256 too: both engines order
    that column as the numbers (store/coltypes.py)."""
    lo = first if first is not None else -(2**62)
    sql = _LARGEST.replace("{column}", column)
    found: list[Number] = []
    for chain_id in scope.chain_ids:
        r = _one(conn, sql, (chain_id, interval.code, lo, newest))
        if r is not None and r[0] is not None:
            v = r[0]
            found.append(float(v) if column in ("max_tps", "max_gps") else int(v))
    return max(found) if found else None


def distinct_since(conn: Connection, scope: Scope, kind: str, first: int | None) -> int:
    """Distinct addresses of `kind` whose last active bucket is at or after `first` (None:
    ever), over the scope's chains (an address active on two chains counts once)."""
    c = metric_last_seen.c
    where = [c.scope.in_([str(i) for i in scope.chain_ids]), c.kind == kind]
    if first is not None:
        where.append(c.last_bucket >= first)
    column = c.address if len(scope.chain_ids) < 2 else func.distinct(c.address)
    return int(conn.execute(select(func.count(column)).where(*where)).scalar_one())
