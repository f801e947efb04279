"""Read metric series from the rollup tables: a few rows per request, never a scan of txs.

Stage: metrics (reads only metric_* tables and the chains listing). The API shapes JSON around
`points`; the rebuild and the benchmark call it too.

Series are dense: every bucket from the scope's first rolled-up bucket to its newest one has a
point (0 when nothing happened), newest first. Aggregate scopes (total, mainnet, testnet) add
per-chain sums, take distinct counts from their own membership rows (exact across chains), and
for the rates: avg* add the chains' rates, max* take the largest per-block sample of any chain.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

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
from avadata.store.queries import chains as chain_queries
from avadata.store.schema import metric_counts, metric_sums

Number = int | float

_DISTINCT = {
    MetricName.ACTIVE_ADDRESSES: KIND_ACTIVE,
    MetricName.ACTIVE_SENDERS: KIND_SENDER,
    MetricName.DEPLOYERS: KIND_DEPLOYER,
}
_CUMULATIVE_DISTINCT = {
    MetricName.CUMULATIVE_ADDRESSES: FIRST_ADDRESS,
    MetricName.CUMULATIVE_DEPLOYERS: FIRST_DEPLOYER,
}
# JSON numbers past 2**63 do not fit orjson's integers (fees in wei can): send them as floats.
_MAX_EXACT = 2**63 - 1


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
    lo, hi = conn.execute(
        select(func.min(s.bucket), func.max(s.bucket)).where(
            s.chain_id.in_(scope.chain_ids), s.interval == interval.code
        )
    ).one()
    return None if lo is None else (int(lo), int(hi))


def newest_block_ts(conn: Connection, scope: Scope) -> int | None:
    """Timestamp of the newest rolled-up block of the scope (the `lastRun` of v1)."""
    if not scope.chain_ids:
        return None
    s = metric_sums.c
    v = conn.execute(
        select(func.max(s.last_ts)).where(
            s.chain_id.in_(scope.chain_ids), s.interval == Interval.DAY.code
        )
    ).scalar()
    return None if v is None else int(v)


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
    if metric in _ONE_COLUMN:
        return _one_column(conn, scope, metric, interval, oldest, newest, stamps)
    cols = _NEEDS[metric]
    per_chain = {c: _sums(conn, c, interval, oldest, newest, cols) for c in scope.chain_ids}
    if metric in (MetricName.AVG_TPS, MetricName.AVG_GPS):
        return [
            (t, v)
            for t, v in _avg_rates(conn, scope, per_chain, stamps, metric is MetricName.AVG_TPS)
        ]
    if metric is MetricName.CUMULATIVE_TX_COUNT:
        base = _sum_before(conn, scope, "txs", oldest)
        daily = {t: sum(rows.get(t, _EMPTY).txs for rows in per_chain.values()) for t in stamps}
        return _running(stamps, daily, base, include_day=True)
    if metric is MetricName.CUMULATIVE_CONTRACTS:
        base = _sum_before(conn, scope, "contracts", oldest)
        daily = {
            t: sum(rows.get(t, _EMPTY).contracts for rows in per_chain.values()) for t in stamps
        }
        return _running(stamps, daily, base, include_day=CUMULATIVE_CONTRACTS_INCLUDES_DAY)
    value = _VALUE[metric]
    merged = _merge(per_chain)
    zero = value(_EMPTY)
    return [(t, value(merged[t]) if t in merged else zero) for t in stamps]


@dataclass(frozen=True, slots=True)
class _Row:
    blocks: int = 0
    txs: int = 0
    gas_used: int = 0
    fees: int = 0
    gas_price_sum: int = 0
    gas_price_max: int = 0
    contracts: int = 0
    first_ts: int | None = None
    last_ts: int | None = None
    max_tps: float = 0.0
    max_gps: float = 0.0


_EMPTY = _Row()


def _num(v: int) -> Number:
    return v if v <= _MAX_EXACT else float(v)


def _avg_gas_price(r: _Row) -> Number:
    return r.gas_price_sum / r.txs if r.txs else 0


# One bucket's value from its (chain-merged) sums.
_VALUE: dict[MetricName, Callable[[_Row], Number]] = {
    MetricName.TX_COUNT: lambda r: r.txs,
    MetricName.GAS_USED: lambda r: _num(r.gas_used),
    MetricName.FEES_PAID: lambda r: _num(r.fees),
    MetricName.CONTRACTS: lambda r: r.contracts,
    MetricName.AVG_GAS_PRICE: _avg_gas_price,
    MetricName.MAX_GAS_PRICE: lambda r: _num(r.gas_price_max),
    MetricName.MAX_TPS: lambda r: r.max_tps,
    MetricName.MAX_GPS: lambda r: r.max_gps,
}


def _merge(per_chain: dict[int, dict[int, _Row]]) -> dict[int, _Row]:
    """Per-bucket sums over chains: additive fields add, maxima take the largest."""
    if len(per_chain) == 1:
        return next(iter(per_chain.values()))
    out: dict[int, _Row] = {}
    for rows in per_chain.values():
        for t, r in rows.items():
            o = out.get(t)
            out[t] = (
                r
                if o is None
                else _Row(
                    txs=o.txs + r.txs,
                    gas_used=o.gas_used + r.gas_used,
                    fees=o.fees + r.fees,
                    gas_price_sum=o.gas_price_sum + r.gas_price_sum,
                    gas_price_max=max(o.gas_price_max, r.gas_price_max),
                    contracts=o.contracts + r.contracts,
                    max_tps=max(o.max_tps, r.max_tps),
                    max_gps=max(o.max_gps, r.max_gps),
                )
            )
    return out


# The metric_sums columns each metric reads (a request never loads the others).
_NEEDS: dict[MetricName, tuple[str, ...]] = {
    MetricName.TX_COUNT: ("txs",),
    MetricName.GAS_USED: ("gas_used",),
    MetricName.FEES_PAID: ("fees",),
    MetricName.CONTRACTS: ("contracts",),
    MetricName.AVG_GAS_PRICE: ("txs", "gas_price_sum"),
    MetricName.MAX_GAS_PRICE: ("gas_price_max",),
    MetricName.MAX_TPS: ("max_tps",),
    MetricName.MAX_GPS: ("max_gps",),
    MetricName.AVG_TPS: ("blocks", "txs", "first_ts", "last_ts"),
    MetricName.AVG_GPS: ("blocks", "gas_used", "first_ts", "last_ts"),
    MetricName.CUMULATIVE_TX_COUNT: ("txs",),
    MetricName.CUMULATIVE_CONTRACTS: ("contracts",),
}


_U256_COLUMNS = frozenset({"fees", "gas_price_sum", "gas_price_max"})

# Metrics read from one column: (column, how chains combine). The fast path of hourly pages.
_ONE_COLUMN: dict[MetricName, tuple[str, Callable[[Iterable[Number]], Number]]] = {
    MetricName.TX_COUNT: ("txs", sum),
    MetricName.GAS_USED: ("gas_used", sum),
    MetricName.FEES_PAID: ("fees", sum),
    MetricName.CONTRACTS: ("contracts", sum),
    MetricName.MAX_GAS_PRICE: ("gas_price_max", max),
    MetricName.MAX_TPS: ("max_tps", max),
    MetricName.MAX_GPS: ("max_gps", max),
}


def _one_column(
    conn: Connection,
    scope: Scope,
    metric: MetricName,
    interval: Interval,
    oldest: int,
    newest: int,
    stamps: list[int],
) -> list[tuple[int, Number]]:
    column, combine = _ONE_COLUMN[metric]
    big = column in _U256_COLUMNS
    per_chain: list[dict[int, Number]] = []
    for chain_id in scope.chain_ids:
        rows = _select(conn, chain_id, interval, oldest, newest, (column,))
        per_chain.append({int(r[0]): int(r[1]) if big else r[1] for r in rows})
    if len(per_chain) == 1:
        values = per_chain[0]
    else:
        values = {}
        for t in {t for d in per_chain for t in d}:
            values[t] = combine(d[t] for d in per_chain if t in d)
    zero: Number = 0.0 if column in ("max_tps", "max_gps") else 0
    if big:
        return [(t, _num(int(values[t])) if t in values else 0) for t in stamps]
    return [(t, values.get(t, zero)) for t in stamps]


def _select(
    conn: Connection,
    chain_id: int,
    interval: Interval,
    oldest: int,
    newest: int,
    columns: tuple[str, ...],
) -> Sequence[Any]:
    """Rows (bucket, *columns) of a chain's buckets in [oldest, newest], as driver SQL: a page
    can be 2,160 rows and SQLAlchemy's per-row processing would be most of the request."""
    mark = "?" if conn.dialect.paramstyle == "qmark" else "%s"
    cols = ", ".join(f'"{c}"' for c in columns)
    sql = (
        f'SELECT "bucket", {cols} FROM "{metric_sums.name}" '
        f'WHERE "chain_id" = {mark} AND "interval" = {mark} AND "bucket" BETWEEN {mark} AND {mark}'
    )
    return conn.exec_driver_sql(sql, (chain_id, interval.code, oldest, newest)).all()


def _sums(
    conn: Connection,
    chain_id: int,
    interval: Interval,
    oldest: int,
    newest: int,
    columns: tuple[str, ...],
) -> dict[int, _Row]:
    """The `columns` of the chain's buckets in [oldest, newest]. U256 columns arrive as the
    engine stores them (text or NUMERIC) and become ints here, as coltypes.U256 would."""
    big = [i for i, c in enumerate(columns) if c in _U256_COLUMNS]
    out: dict[int, _Row] = {}
    for r in _select(conn, chain_id, interval, oldest, newest, columns):
        values = list(r[1:])
        for i in big:
            values[i] = int(values[i])
        out[int(r[0])] = _Row(**dict(zip(columns, values, strict=True)))
    return out


def _counts(
    conn: Connection, scope: Scope, kind: str, interval: Interval, oldest: int, newest: int
) -> dict[int, int]:
    """Distinct members (kinds a/s/d) or first sightings (A/D) per bucket in [oldest, newest]."""
    if not scope.materialized:
        raise ScopeNotReady(scope.key)
    # Driver SQL, as in `_select`: hourly pages are 2,160 rows.
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
    per_chain: dict[int, dict[int, _Row]],
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
