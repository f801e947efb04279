"""Read metric series from the rollup tables: a few rows per request, never a scan of txs.

Stage: store (reads only metric_* tables and the chains listing). The arithmetic over the rows
is metrics/series.py and metrics/sums.py; the API shapes JSON around `points`, and the rebuild's
tests and the benchmark call it too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, func, select

from avadata.metrics import buckets
from avadata.metrics.buckets import Interval
from avadata.metrics.catalog import CUMULATIVE_CONTRACTS_INCLUDES_DAY, MetricName
from avadata.metrics.rollup import Stamp
from avadata.metrics.scopes import AGGREGATES, key_of
from avadata.metrics.series import (
    CUMULATIVE_DISTINCT,
    DISTINCT,
    Scope,
    ScopeNotReady,
    avg_rates,
    running,
)
from avadata.metrics.sums import (
    EMPTY,
    NEEDS,
    ONE_COLUMN,
    VALUE,
    Number,
    merge,
    one_column,
    sums_by_bucket,
)
from avadata.store.metrics.driver_sql import mark
from avadata.store.metrics.scope_rows import aggregate_sets, is_materialized
from avadata.store.queries import chains as chain_queries
from avadata.store.schema import metric_counts, metric_sums


def resolve_scope(conn: Connection, chain_id: str) -> Scope | None:
    """A decimal EVM chain ID of a known chain, or total/mainnet/testnet; None if unknown."""
    if chain_id in AGGREGATES:
        ids = aggregate_sets(conn)[chain_id]
        key = key_of(ids)
        if len(ids) < 2 or is_materialized(conn, key):
            return Scope(key, ids)
        # Not built yet (a chain joined since the last batch). Exact anyway when at most one
        # of the chains has rolled-up data: that chain's own rows are the aggregate's.
        s = metric_sums.c
        with_data = sorted(
            int(c)
            for c in conn.execute(
                select(s.chain_id).where(s.chain_id.in_(ids)).distinct()
            ).scalars()
        )
        if len(with_data) <= 1:
            return Scope(key_of(with_data) or key, ids)
        return Scope(key, ids, materialized=False)
    if not chain_id.isdigit() or len(chain_id) > 18:
        return None
    row = chain_queries.find_chain(conn, chain_id)
    return None if row is None else Scope(str(row.chain_id), (row.chain_id,))


def extent(conn: Connection, scope: Scope, interval: Interval) -> tuple[int, int] | None:
    """(oldest, newest) bucket with rolled-up blocks in `scope`, or None when there are none."""
    if not scope.chain_ids:
        return None
    s = metric_sums.c
    # One index seek per end and chain ((chain_id, interval, bucket) is the key): a MIN and a
    # MAX together over an IN list make SQLite walk every bucket of the range instead.
    ends: list[int] = []
    for chain_id in scope.chain_ids:
        base = select(s.bucket).where(s.chain_id == chain_id, s.interval == interval.code)
        lo = conn.execute(base.order_by(s.bucket).limit(1)).scalar()
        if lo is None:
            continue
        hi = conn.execute(base.order_by(s.bucket.desc()).limit(1)).scalar()
        ends += [int(lo), int(hi)]  # type: ignore[arg-type]
    return (min(ends), max(ends)) if ends else None


def newest_block_ts(conn: Connection, scope: Scope) -> int | None:
    """Timestamp of the newest rolled-up block of the scope (the `lastRun` of v1)."""
    if not scope.chain_ids:
        return None
    s = metric_sums.c
    # Blocks only move forward in time, so a chain's newest day bucket holds its newest block.
    newest: list[int] = []
    for chain_id in scope.chain_ids:
        v = conn.execute(
            select(s.last_ts)
            .where(s.chain_id == chain_id, s.interval == Interval.DAY.code)
            .order_by(s.bucket.desc())
            .limit(1)
        ).scalar()
        if v is not None:
            newest.append(int(v))  # type: ignore[call-overload]
    return max(newest) if newest else None


def points(
    conn: Connection,
    scope: Scope,
    metric: MetricName,
    interval: Interval,
    oldest: int,
    newest: int,
) -> list[tuple[int, Number]]:
    """(bucket start, value) for every bucket start in [oldest, newest], newest first.

    Both bounds must be bucket starts of `interval`; callers clip them to `extent`.
    """
    stamps = list(buckets.span_desc(oldest, newest, interval))
    if not stamps:
        return []
    if metric in DISTINCT:
        counts = _counts(conn, scope, DISTINCT[metric], interval, oldest, newest)
        return [(t, counts.get(t, 0)) for t in stamps]
    if metric in CUMULATIVE_DISTINCT:
        kind = CUMULATIVE_DISTINCT[metric]
        base = _count_before(conn, scope, kind, oldest)
        counts = _counts(conn, scope, kind, Interval.DAY, oldest, newest)
        return running(stamps, counts, base, include_day=True)
    if metric in ONE_COLUMN:
        column = (ONE_COLUMN[metric][0],)
        rows = (select_rows(conn, c, interval, oldest, newest, column) for c in scope.chain_ids)
        return one_column(metric, rows, stamps)
    cols = NEEDS[metric]
    per_chain = {
        c: sums_by_bucket(select_rows(conn, c, interval, oldest, newest, cols), cols)
        for c in scope.chain_ids
    }
    if metric in (MetricName.AVG_TPS, MetricName.AVG_GPS):
        last_before = {c: _last_block_before(conn, c, stamps[-1]) for c in per_chain}
        return avg_rates(per_chain, last_before, stamps, metric is MetricName.AVG_TPS)
    if metric is MetricName.CUMULATIVE_TX_COUNT:
        base = _sum_before(conn, scope, "txs", oldest)
        daily = {t: sum(rows.get(t, EMPTY).txs for rows in per_chain.values()) for t in stamps}
        return running(stamps, daily, base, include_day=True)
    if metric is MetricName.CUMULATIVE_CONTRACTS:
        base = _sum_before(conn, scope, "contracts", oldest)
        daily = {
            t: sum(rows.get(t, EMPTY).contracts for rows in per_chain.values()) for t in stamps
        }
        return running(stamps, daily, base, include_day=CUMULATIVE_CONTRACTS_INCLUDES_DAY)
    value = VALUE[metric]
    merged = merge(per_chain)
    zero = value(EMPTY)
    return [(t, value(merged[t]) if t in merged else zero) for t in stamps]


def select_rows(
    conn: Connection,
    chain_id: int,
    interval: Interval,
    oldest: int,
    newest: int,
    columns: tuple[str, ...],
) -> Sequence[Any]:
    """Rows (bucket, *columns) of a chain's buckets in [oldest, newest], as driver SQL: a page
    can be 2,160 rows and SQLAlchemy's per-row processing would be most of the request."""
    ph = mark(conn)
    cols = ", ".join(f'"{c}"' for c in columns)
    sql = (
        f'SELECT "bucket", {cols} FROM "{metric_sums.name}" '
        f'WHERE "chain_id" = {ph} AND "interval" = {ph} AND "bucket" BETWEEN {ph} AND {ph}'
    )
    return conn.exec_driver_sql(sql, (chain_id, interval.code, oldest, newest)).all()


def _counts(
    conn: Connection, scope: Scope, kind: str, interval: Interval, oldest: int, newest: int
) -> dict[int, int]:
    """Distinct members (kinds a/s/d) or first sightings (A/D) per bucket in [oldest, newest]."""
    if not scope.materialized:
        raise ScopeNotReady(scope.key)
    # Driver SQL, as in `select_rows`: hourly pages are 2,160 rows.
    ph = mark(conn)
    sql = (
        f'SELECT "bucket", "count" FROM "{metric_counts.name}" WHERE "scope" = {ph} '
        f'AND "kind" = {ph} AND "interval" = {ph} AND "bucket" BETWEEN {ph} AND {ph}'
    )
    rows = conn.exec_driver_sql(sql, (scope.key, kind, interval.code, oldest, newest)).all()
    return {int(b): int(n) for b, n in rows}


def _count_before(conn: Connection, scope: Scope, kind: str, day: int) -> int:
    """First sightings (A/D) before `day`."""
    if not scope.materialized:
        raise ScopeNotReady(scope.key)
    c = metric_counts.c
    q = select(func.coalesce(func.sum(c["count"]), 0)).where(
        c.scope == scope.key, c.kind == kind, c.interval == Interval.DAY.code, c.bucket < day
    )
    return int(conn.execute(q).scalar_one())


def _sum_before(conn: Connection, scope: Scope, column: str, day: int) -> int:
    """Sum of an integer (BIGINT) column over the scope's days before `day`."""
    s = metric_sums.c
    q = select(func.coalesce(func.sum(s[column]), 0)).where(
        s.chain_id.in_(scope.chain_ids), s.interval == Interval.DAY.code, s.bucket < day
    )
    return int(conn.execute(q).scalar_one())


def _last_block_before(conn: Connection, chain_id: int, day: int) -> Stamp | None:
    """The time of the chain's last block before `day`: its last day row's (a chain's blocks
    never go back in time), one index seek."""
    s = metric_sums.c
    r = conn.execute(
        select(s.last_ts, s.last_ms)
        .where(s.chain_id == chain_id, s.interval == Interval.DAY.code, s.bucket < day)
        .order_by(s.bucket.desc())
        .limit(1)
    ).first()
    return None if r is None or r.last_ts is None else (int(r.last_ts), r.last_ms)
