"""Rolling-window chain metrics (getEvmChainRollingWindowMetrics): which buckets each window
covers, and a window's value from the rollup rows of those buckets.

Stage: metrics (pure). `store/metrics/rolling_reads.py` reads the rows; the API shapes JSON.

Windows are whole rollup buckets ending with the scope's newest bucket (never the wall clock,
so a chain that stopped still answers its last activity, and a value equals what the rollups
and `avadata metrics rebuild` hold):

- lastHour, lastDay, lastWeek: the newest 1, 24 and 168 hourly buckets;
- lastMonth, last90Days, lastYear: the newest 30, 90 and 365 daily buckets; allTime: every day.

Distinct counts read each address's last active bucket (`metric_last_seen`): an address is in
a window when its last bucket is at or after the window's first. activeAddresses and
activeSenders answer the hourly windows only (the hosted spec says so); deployers have day
resolution, so their lastDay and lastWeek are the newest 1 and 7 days and they have no lastHour.
"""

from __future__ import annotations

from dataclasses import dataclass

from avadata.metrics import buckets
from avadata.metrics.buckets import Interval
from avadata.metrics.catalog import MetricName
from avadata.metrics.rollup import KIND_ACTIVE, KIND_DEPLOYER, KIND_SENDER, BucketSums, rate
from avadata.metrics.sums import VALUE, Number


@dataclass(frozen=True, slots=True)
class Window:
    name: str
    interval: Interval
    # How many buckets, ending with the newest; None: every bucket.
    buckets: int | None


WINDOWS = (
    Window("lastHour", Interval.HOUR, 1),
    Window("lastDay", Interval.HOUR, 24),
    Window("lastWeek", Interval.HOUR, 168),
    Window("lastMonth", Interval.DAY, 30),
    Window("last90Days", Interval.DAY, 90),
    Window("lastYear", Interval.DAY, 365),
    Window("allTime", Interval.DAY, None),
)

# The hosted spec's ChainRollingWindowMetric enum, in its order.
ROLLING_METRICS = (
    MetricName.GAS_USED,
    MetricName.TX_COUNT,
    MetricName.AVG_GPS,
    MetricName.MAX_GPS,
    MetricName.AVG_TPS,
    MetricName.MAX_TPS,
    MetricName.AVG_GAS_PRICE,
    MetricName.MAX_GAS_PRICE,
    MetricName.FEES_PAID,
    MetricName.CONTRACTS,
    MetricName.DEPLOYERS,
    MetricName.ACTIVE_ADDRESSES,
    MetricName.ACTIVE_SENDERS,
)

# Distinct metrics: the last-seen kind, and the windows each answers (name -> (interval, n)).
DISTINCT_KIND = {
    MetricName.ACTIVE_ADDRESSES: KIND_ACTIVE,
    MetricName.ACTIVE_SENDERS: KIND_SENDER,
    MetricName.DEPLOYERS: KIND_DEPLOYER,
}
_HOURLY = {w.name: (w.interval, w.buckets) for w in WINDOWS[:3]}
_DEPLOYER_WINDOWS: dict[str, tuple[Interval, int | None]] = {
    "lastDay": (Interval.DAY, 1),
    "lastWeek": (Interval.DAY, 7),
} | {w.name: (w.interval, w.buckets) for w in WINDOWS[3:]}


def distinct_windows(metric: MetricName) -> dict[str, tuple[Interval, int | None]]:
    return _DEPLOYER_WINDOWS if metric is MetricName.DEPLOYERS else _HOURLY


def first_bucket(newest: int, interval: Interval, count: int | None) -> int | None:
    """The first bucket of a window of `count` buckets ending with `newest` (None: all)."""
    if count is None:
        return None
    step = buckets.HOUR if interval is Interval.HOUR else buckets.DAY
    return newest - (count - 1) * step


def window_value(
    metric: MetricName,
    per_chain: dict[int, BucketSums],
    last_before: dict[int, int | None],
) -> Number:
    """A sum-based metric over one window: each chain's buckets of the window folded into one
    BucketSums, and each chain's last block before the window (for avgTps/avgGps)."""
    if metric in (MetricName.AVG_TPS, MetricName.AVG_GPS):
        # As the daily avg rates: each chain's amount over the span from its last block before
        # the window (else the window's first block) to its last block; chains add up.
        total = 0.0
        for chain_id, r in per_chain.items():
            if r.blocks == 0 or r.last_ts is None or r.first_ts is None:
                continue
            prev = last_before.get(chain_id)
            ref = prev if prev is not None else r.first_ts
            total += rate(r.txs if metric is MetricName.AVG_TPS else r.gas_used, r.last_ts - ref)
        return total
    merged = BucketSums()
    for r in per_chain.values():
        merged.add(r)
    return VALUE[metric](merged)
