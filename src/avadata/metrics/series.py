"""Read metric series from the rollup tables: a few rows per request, never a scan of txs.

Stage: metrics (reads only metric_* tables and the chains listing). The API shapes JSON around
`points`; the rebuild and the benchmark call it too.

Series are dense: every bucket from the scope's first rolled-up bucket to its newest one has a
point (0 when nothing happened), newest first. Aggregate scopes (total, mainnet, testnet) add
per-chain sums, take distinct counts from their own membership rows (exact across chains), and
for the rates: avg* add the chains' rates, max* take the largest per-block sample of any chain.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import Connection, func, select

from avadata.metrics import buckets
from avadata.metrics.applier import (
    FIRST_ADDRESS,
    FIRST_DEPLOYER,
    KIND_ACTIVE,
    KIND_DEPLOYER,
    KIND_SENDER,
)
from avadata.metrics.buckets import Interval
from avadata.metrics.catalog import CUMULATIVE_CONTRACTS_INCLUDES_DAY, MetricName
from avadata.metrics.rollup import rate
from avadata.metrics.scopes import AGGREGATES, aggregate_sets, is_materialized, key_of
from avadata.metrics.sums import (
    EMPTY,
    NEEDS,
    ONE_COLUMN,
    VALUE,
    Number,
    SumsRow,
    merge,
    one_column,
    read_sums,
)
from avadata.store.queries import chains as chain_queries
from avadata.store.schema import metric_counts, metric_sums

_DISTINCT = {
    MetricName.ACTIVE_ADDRESSES: KIND_ACTIVE,
    MetricName.ACTIVE_SENDERS: KIND_SENDER,
    MetricName.DEPLOYERS: KIND_DEPLOYER,
}
_CUMULATIVE_DISTINCT = {
    MetricName.CUMULATIVE_ADDRESSES: FIRST_ADDRESS,
    MetricName.CUMULATIVE_DEPLOYERS: FIRST_DEPLOYER,
}


class ScopeNotReady(RuntimeError):
    """An aggregate's distinct counts are being built by the writer; ask again shortly."""


@dataclass(frozen=True, slots=True)
class Scope:
    """What a `{chainId}` names: the membership scope key and the chains it covers.

    `materialized` is False for an aggregate of several chains with data whose rows the writer
    has not built yet (a chain joined since the last batch): its distinct counts are then
    unavailable for the moment (ScopeNotReady) rather than approximate.
    """

    key: str
    chain_ids: tuple[int, ...]
    materialized: bool = True


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
    if metric in _DISTINCT:
        counts = _counts(conn, scope, _DISTINCT[metric], interval, oldest, newest)
        return [(t, counts.get(t, 0)) for t in stamps]
    if metric in _CUMULATIVE_DISTINCT:
        kind = _CUMULATIVE_DISTINCT[metric]
        base = _count_before(conn, scope, kind, oldest)
        counts = _counts(conn, scope, kind, Interval.DAY, oldest, newest)
        return _running(stamps, counts, base, include_day=True)
    if metric in ONE_COLUMN:
        return one_column(conn, scope.chain_ids, metric, interval, oldest, newest, stamps)
    cols = NEEDS[metric]
    per_chain = {c: read_sums(conn, c, interval, oldest, newest, cols) for c in scope.chain_ids}
    if metric in (MetricName.AVG_TPS, MetricName.AVG_GPS):
        return [
            (t, v)
            for t, v in _avg_rates(conn, scope, per_chain, stamps, metric is MetricName.AVG_TPS)
        ]
    if metric is MetricName.CUMULATIVE_TX_COUNT:
        base = _sum_before(conn, scope, "txs", oldest)
        daily = {t: sum(rows.get(t, EMPTY).txs for rows in per_chain.values()) for t in stamps}
        return _running(stamps, daily, base, include_day=True)
    if metric is MetricName.CUMULATIVE_CONTRACTS:
        base = _sum_before(conn, scope, "contracts", oldest)
        daily = {
            t: sum(rows.get(t, EMPTY).contracts for rows in per_chain.values()) for t in stamps
        }
        return _running(stamps, daily, base, include_day=CUMULATIVE_CONTRACTS_INCLUDES_DAY)
    value = VALUE[metric]
    merged = merge(per_chain)
    zero = value(EMPTY)
    return [(t, value(merged[t]) if t in merged else zero) for t in stamps]


def _counts(
    conn: Connection, scope: Scope, kind: str, interval: Interval, oldest: int, newest: int
) -> dict[int, int]:
    """Distinct members (kinds a/s/d) or first sightings (A/D) per bucket in [oldest, newest]."""
    if not scope.materialized:
        raise ScopeNotReady(scope.key)
    # Driver SQL, as in `select_rows`: hourly pages are 2,160 rows.
    mark = "?" if conn.dialect.paramstyle == "qmark" else "%s"
    sql = (
        f'SELECT "bucket", "count" FROM "{metric_counts.name}" WHERE "scope" = {mark} '
        f'AND "kind" = {mark} AND "interval" = {mark} AND "bucket" BETWEEN {mark} AND {mark}'
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


def _running(
    stamps_desc: list[int], daily: dict[int, int], base: int, *, include_day: bool
) -> list[tuple[int, Number]]:
    """Running totals from `base`, per day: through the day, or only before it."""
    out: list[tuple[int, Number]] = []
    total = base
    for t in reversed(stamps_desc):
        if include_day:
            total += daily.get(t, 0)
            out.append((t, total))
        else:
            out.append((t, total))
            total += daily.get(t, 0)
    out.reverse()
    return out


def _last_ts_before(conn: Connection, chain_id: int, day: int) -> int | None:
    s = metric_sums.c
    v = conn.execute(
        select(func.max(s.last_ts)).where(
            s.chain_id == chain_id, s.interval == Interval.DAY.code, s.bucket < day
        )
    ).scalar()
    return None if v is None else int(v)


def _avg_rates(
    conn: Connection,
    scope: Scope,
    per_chain: dict[int, dict[int, SumsRow]],
    stamps_desc: list[int],
    tps: bool,
) -> Iterable[tuple[int, Number]]:
    """avgTps/avgGps per day, added up over the scope's chains.

    The span runs from the last block before the day (the previous day's last block, or an
    earlier one across days without blocks) to the day's last block; on the first day with
    blocks there is no earlier block, so it runs from the day's first block.
    """
    oldest = stamps_desc[-1]
    values = dict.fromkeys(stamps_desc, 0.0)
    for chain_id, rows in per_chain.items():
        prev_last = _last_ts_before(conn, chain_id, oldest)
        for t in reversed(stamps_desc):
            r = rows.get(t)
            if r is None or r.blocks == 0 or r.last_ts is None or r.first_ts is None:
                continue
            ref = prev_last if prev_last is not None else r.first_ts
            values[t] += rate(r.txs if tps else r.gas_used, r.last_ts - ref)
            prev_last = r.last_ts
    return [(t, values[t]) for t in stamps_desc]
