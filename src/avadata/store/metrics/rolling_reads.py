"""Read the rollup rows behind one rolling-window value (metrics/rolling.py holds the windows
and the arithmetic).

Stage: store (reads metric_sums and metric_last_seen only, as `avadata metrics rebuild`
recomputes them).
"""

from __future__ import annotations

from sqlalchemy import Connection, func, select

from avadata.metrics.buckets import Interval
from avadata.metrics.rollup import BucketSums
from avadata.metrics.series import Scope
from avadata.metrics.sums import sums_by_bucket
from avadata.store.metrics.series_reads import select_rows
from avadata.store.schema import metric_last_seen, metric_sums

_COLUMNS = tuple(
    c
    for c in BucketSums.__dataclass_fields__
    if c not in ("first_ts", "last_ts", "max_tps", "max_gps")
) + ("first_ts", "last_ts", "max_tps", "max_gps")


def newest_bucket(conn: Connection, scope: Scope, interval: Interval) -> int | None:
    """The scope's newest bucket of `interval` (one index seek per chain)."""
    s = metric_sums.c
    found: list[int] = []
    for chain_id in scope.chain_ids:
        v = conn.execute(
            select(s.bucket)
            .where(s.chain_id == chain_id, s.interval == interval.code)
            .order_by(s.bucket.desc())
            .limit(1)
        ).scalar()
        if v is not None:
            found.append(int(v))  # type: ignore[call-overload]
    return max(found) if found else None


def window_sums(
    conn: Connection, scope: Scope, interval: Interval, first: int | None, newest: int
) -> tuple[dict[int, BucketSums], dict[int, int | None]]:
    """Per chain: its buckets in [first, newest] folded into one BucketSums, and the timestamp
    of its last block before `first` (None: no earlier block, or a window of all buckets)."""
    lo = first if first is not None else -(2**62)
    sums: dict[int, BucketSums] = {}
    before: dict[int, int | None] = {}
    s = metric_sums.c
    for chain_id in scope.chain_ids:
        total = BucketSums()
        rows = sums_by_bucket(select_rows(conn, chain_id, interval, lo, newest, _COLUMNS), _COLUMNS)
        for r in rows.values():
            total.add(r)
        sums[chain_id] = total
        v = conn.execute(
            select(func.max(s.last_ts)).where(
                s.chain_id == chain_id, s.interval == interval.code, s.bucket < lo
            )
        ).scalar()
        before[chain_id] = None if v is None else int(v)
    return sums, before


def distinct_since(conn: Connection, scope: Scope, kind: str, first: int | None) -> int:
    """Distinct addresses of `kind` whose last active bucket is at or after `first` (None:
    ever), over the scope's chains (an address active on two chains counts once)."""
    c = metric_last_seen.c
    where = [c.scope.in_([str(i) for i in scope.chain_ids]), c.kind == kind]
    if first is not None:
        where.append(c.last_bucket >= first)
    column = c.address if len(scope.chain_ids) < 2 else func.distinct(c.address)
    return int(conn.execute(select(func.count(column)).where(*where)).scalar_one())
