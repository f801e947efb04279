"""The 17 chain metrics of the seed: name, definition and allowed intervals, one entry each.

Stage: metrics (pure). The API validates `{metric}` and `timeInterval` against this table and
the docs are checked against it, so this is the one place a metric is declared.

Rule (seed): names beginning with cumulative, max or avg accept only `day`; the seed's table
also limits contracts, deployers and feesPaid to `day` (and so does the SDK's doc text).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from avadata.metrics.buckets import ALL_INTERVALS, Interval


class MetricName(StrEnum):
    ACTIVE_ADDRESSES = "activeAddresses"
    ACTIVE_SENDERS = "activeSenders"
    CUMULATIVE_TX_COUNT = "cumulativeTxCount"
    CUMULATIVE_ADDRESSES = "cumulativeAddresses"
    CUMULATIVE_CONTRACTS = "cumulativeContracts"
    CUMULATIVE_DEPLOYERS = "cumulativeDeployers"
    CONTRACTS = "contracts"
    DEPLOYERS = "deployers"
    GAS_USED = "gasUsed"
    TX_COUNT = "txCount"
    AVG_GPS = "avgGps"
    MAX_GPS = "maxGps"
    AVG_TPS = "avgTps"
    MAX_TPS = "maxTps"
    AVG_GAS_PRICE = "avgGasPrice"
    MAX_GAS_PRICE = "maxGasPrice"
    FEES_PAID = "feesPaid"


@dataclass(frozen=True, slots=True)
class Metric:
    name: MetricName
    definition: str
    intervals: tuple[Interval, ...]

    def allows(self, interval: Interval) -> bool:
        return interval in self.intervals


_DAY = (Interval.DAY,)

# (name, definition, intervals): the seed's table, in the seed's order.
_TABLE: tuple[tuple[MetricName, str, tuple[Interval, ...]], ...] = (
    (
        MetricName.ACTIVE_ADDRESSES,
        "Distinct addresses in the from or to field of a transaction or of an ERC-20, ERC-721 "
        "or ERC-1155 transfer log in the interval",
        ALL_INTERVALS,
    ),
    (
        MetricName.ACTIVE_SENDERS,
        "Like activeAddresses, counting only the from field",
        ALL_INTERVALS,
    ),
    (
        MetricName.CUMULATIVE_TX_COUNT,
        "Transactions from genesis up to 24 hours after the timestamp",
        _DAY,
    ),
    (
        MetricName.CUMULATIVE_ADDRESSES,
        "Unique addresses (activeAddresses rule) from genesis up to 24 hours after the timestamp",
        _DAY,
    ),
    (
        MetricName.CUMULATIVE_CONTRACTS,
        "Contracts created (CREATE, CREATE2 or CREATE3 trace frames) from genesis up to the "
        "timestamp",
        _DAY,
    ),
    (
        MetricName.CUMULATIVE_DEPLOYERS,
        "Unique deployers (from address of a creating trace frame) from genesis up to 24 hours "
        "after the timestamp",
        _DAY,
    ),
    (MetricName.CONTRACTS, "Contracts created within the interval", _DAY),
    (MetricName.DEPLOYERS, "Unique deployers within the interval", _DAY),
    (MetricName.GAS_USED, "Gas used by transactions within the interval", ALL_INTERVALS),
    (MetricName.TX_COUNT, "Transactions within the interval", ALL_INTERVALS),
    (
        MetricName.AVG_GPS,
        "Gas used by the day's blocks divided by the time from the previous day's last block to "
        "the day's last block",
        _DAY,
    ),
    (
        MetricName.MAX_GPS,
        "Largest per-block gas used divided by the time since the previous block",
        _DAY,
    ),
    (
        MetricName.AVG_TPS,
        "Transactions of the day divided by the time from the previous day's last block to the "
        "day's last block",
        _DAY,
    ),
    (
        MetricName.MAX_TPS,
        "Largest per-block transaction count divided by the time since the previous block",
        _DAY,
    ),
    (MetricName.AVG_GAS_PRICE, "Mean of the receipts' effective gas price within the day", _DAY),
    (MetricName.MAX_GAS_PRICE, "Largest receipt effective gas price within the day", _DAY),
    (MetricName.FEES_PAID, "Sum of gas used times receipt gas price within the day", _DAY),
)

METRICS: dict[str, Metric] = {n.value: Metric(n, d, i) for n, d, i in _TABLE}

# The seed defines cumulativeContracts "from genesis up to the timestamp", while the other
# cumulative metrics run "up to 24 hours after the timestamp". We follow the seed literally:
# cumulativeContracts at day T counts creations before T (see docs/metrics.md).
CUMULATIVE_CONTRACTS_INCLUDES_DAY = False


def lookup(name: str) -> Metric | None:
    """The metric called `name` (case-sensitive, as the SDK's enum), or None."""
    return METRICS.get(name)
