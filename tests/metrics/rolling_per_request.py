"""The second computation of rolling windows: what the API computed per request before the
rollup kept running totals. Every bucket row of the window is read and folded in order, and
each chain's last block before the window is looked up; no running total (run_* column) is
read. The served windows of the sum-based and max metrics must equal it exactly."""

from __future__ import annotations

from sqlalchemy import Connection, func, select

from avadata.metrics.buckets import DAY, HOUR, Interval
from avadata.metrics.catalog import MetricName
from avadata.metrics.rollup import BucketSums, span_rate
from avadata.metrics.series import Scope
from avadata.metrics.sums import VALUE, Number
from avadata.store.schema import metric_sums

# (window, interval, buckets ending with the newest; None: all).
WINDOWS = (
    ("lastHour", Interval.HOUR, 1),
    ("lastDay", Interval.HOUR, 24),
    ("lastWeek", Interval.HOUR, 168),
    ("lastMonth", Interval.DAY, 30),
    ("last90Days", Interval.DAY, 90),
    ("lastYear", Interval.DAY, 365),
    ("allTime", Interval.DAY, None),
)
_FIELDS = tuple(BucketSums.__dataclass_fields__)
_RATES = (MetricName.AVG_TPS, MetricName.AVG_GPS)


def per_request(conn: Connection, scope: Scope, metric: MetricName) -> dict[str, Number]:
    s = metric_sums.c
    newest: dict[Interval, int] = {}
    for interval in (Interval.HOUR, Interval.DAY):
        v = conn.execute(
            select(func.max(s.bucket)).where(
                s.chain_id.in_(scope.chain_ids), s.interval == interval.code
            )
        ).scalar()
        if v is None:
            return {}
        newest[interval] = int(v)
    out: dict[str, Number] = {}
    for name, interval, count in WINDOWS:
        step = HOUR if interval is Interval.HOUR else DAY
        hi = newest[interval]
        lo = -(2**62) if count is None else hi - (count - 1) * step
        merged, rates = BucketSums(), 0.0
        for chain_id in scope.chain_ids:
            rows = conn.execute(
                select(*(s[f] for f in _FIELDS))
                .where(
                    s.chain_id == chain_id, s.interval == interval.code, s.bucket.between(lo, hi)
                )
                .order_by(s.bucket)
            ).all()
            window = BucketSums()
            for r in rows:
                window.add(BucketSums(**dict(zip(_FIELDS, r, strict=True))))
            merged.add(window)
            if metric in _RATES and window.blocks:
                before = conn.execute(
                    select(s.last_ts, s.last_ms)
                    .where(s.chain_id == chain_id, s.interval == interval.code, s.bucket < lo)
                    .order_by(s.bucket.desc())
                    .limit(1)
                ).first()
                assert window.first_ts is not None and window.last_ts is not None
                start = (window.first_ts, window.first_ms) if before is None else tuple(before)
                amount = window.txs if metric is MetricName.AVG_TPS else window.gas_used
                rates += span_rate(amount, start, (window.last_ts, window.last_ms))
        out[name] = rates if metric in _RATES else VALUE[metric](merged)
    return out
