"""Rolling-window chain metrics (getEvmChainRollingWindowMetrics): which buckets each window
covers, and a window's value from the rollup rows of those buckets.

Stage: metrics (pure). `store/metrics/rolling_reads.py` reads the rows; the API shapes JSON.

Windows are whole rollup buckets ending with the scope's newest bucket (never the wall clock,
so a chain that stopped still answers its last activity, and a value equals what the rollups
and `avadata metrics rebuild` hold):

- lastHour, lastDay, lastWeek: the newest 1, 24 and 168 hourly buckets;
- lastMonth, last90Days, lastYear: the newest 30, 90 and 365 daily buckets; allTime: every day.

Sums (txCount, gasUsed, feesPaid, contracts, avgGasPrice, and the amounts of avgTps/avgGps)
are differences of running totals: each metric_sums row carries the chain's totals through its
bucket (`Running`, kept by the rollup: `running_totals`), so a window is the chain's newest
row minus its last row before the window, two lookups whatever the window's length. The
avgTps/avgGps span runs from that row's last block (else the chain's first block) to the
newest block, in milliseconds where both blocks' headers carry them (`rollup.span_rate`).
maxTps, maxGps and maxGasPrice are the largest bucket value of the window.

Distinct counts read each address's last active bucket (`metric_last_seen`): an address is in
a window when its last bucket is at or after the window's first. activeAddresses and
activeSenders answer the hourly windows only (the hosted spec says so); deployers have day
resolution, so their lastDay and lastWeek are the newest 1 and 7 days and they have no lastHour.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from avadata.metrics import buckets
from avadata.metrics.buckets import Interval
from avadata.metrics.catalog import MetricName
from avadata.metrics.rollup import BucketSums, Stamp, span_rate
from avadata.metrics.series import DISTINCT
from avadata.metrics.sums import VALUE, Number, json_number


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

# Distinct metrics: the last-seen kind (as their series' member rows), and the windows each
# answers (name -> (interval, n)).
DISTINCT_KIND = DISTINCT
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


# The BucketSums fields kept as running totals (metric_sums' run_<field> columns).
RUNNING_FIELDS = ("txs", "gas_used", "fees", "gas_price_sum", "contracts")
_NO_TOTALS = (0,) * len(RUNNING_FIELDS)
# Window metrics that take the window's largest bucket value (the others: running totals).
LARGEST = {
    MetricName.MAX_TPS: "max_tps",
    MetricName.MAX_GPS: "max_gps",
    MetricName.MAX_GAS_PRICE: "gas_price_max",
}


class Running(NamedTuple):
    """A chain's running totals through one bucket (RUNNING_FIELDS, in order) and the time of
    the bucket's last block."""

    bucket: int
    totals: tuple[int, ...]
    last: Stamp


def running_totals(
    before: tuple[int, ...] | None, rows: Iterable[BucketSums]
) -> list[tuple[int, ...]]:
    """The running totals through each of `rows` (a chain's consecutive buckets of one
    interval, ascending), from the totals through the bucket before them (None: none)."""
    totals = before or _NO_TOTALS
    out = []
    for r in rows:
        totals = tuple(t + getattr(r, f) for t, f in zip(totals, RUNNING_FIELDS, strict=True))
        out.append(totals)
    return out


@dataclass(frozen=True, slots=True)
class ChainWindow:
    """What one chain contributes to a window: its newest row, its last row before the window
    (None: none, or a window of every bucket), and its first block's time."""

    newest: Running
    before: Running | None
    start: Stamp


def summed_value(metric: MetricName, chains: Iterable[ChainWindow], first: int | None) -> Number:
    """A metric of running totals (neither LARGEST nor distinct) over the window starting at
    bucket `first` (None: every bucket)."""
    merged = BucketSums()
    rates = 0.0
    for c in chains:
        if first is not None and c.newest.bucket < first:
            continue  # no block of this chain in the window
        base = c.before.totals if c.before is not None else _NO_TOTALS
        fields = zip(RUNNING_FIELDS, c.newest.totals, base, strict=True)
        part = BucketSums(**{f: newest - before for f, newest, before in fields})
        merged.add(part)
        if metric in (MetricName.AVG_TPS, MetricName.AVG_GPS):
            # As the daily avg rates: the span from the chain's last block before the window
            # (else its first block) to its last block; chains add up.
            amount = part.txs if metric is MetricName.AVG_TPS else part.gas_used
            start = c.before.last if c.before is not None else c.start
            rates += span_rate(amount, start, c.newest.last)
    if metric in (MetricName.AVG_TPS, MetricName.AVG_GPS):
        return rates
    return VALUE[metric](merged)


def largest_value(metric: MetricName, largest: Number | None) -> Number:
    """A LARGEST metric from the window's largest bucket value (None: no bucket)."""
    if metric is MetricName.MAX_GAS_PRICE:
        return json_number(int(largest or 0))
    return float(largest or 0.0)
