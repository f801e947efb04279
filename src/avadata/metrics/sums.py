"""The additive per-bucket sums behind txCount, gasUsed, feesPaid, contracts, gas prices and
the rates: which columns a metric needs, and its value from them, for one chain or merged over
an aggregate's chains.

Stage: metrics (pure). `store/metrics/series_reads.py` reads the `metric_sums` rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from avadata.metrics.catalog import MetricName
from avadata.metrics.rollup import BucketSums

Number = int | float
# JSON numbers past 2**63 do not fit orjson's integers (fees in wei can): send them as floats.
_MAX_EXACT = 2**63 - 1

# The sums of a bucket without rows (read only, never added to).
EMPTY = BucketSums()


def json_number(v: int) -> Number:
    return v if v <= _MAX_EXACT else float(v)


def _avg_gas_price(r: BucketSums) -> Number:
    return r.gas_price_sum / r.txs if r.txs else 0


# One bucket's value from its (chain-merged) sums.
VALUE: dict[MetricName, Callable[[BucketSums], Number]] = {
    MetricName.TX_COUNT: lambda r: r.txs,
    MetricName.GAS_USED: lambda r: json_number(r.gas_used),
    MetricName.FEES_PAID: lambda r: json_number(r.fees),
    MetricName.CONTRACTS: lambda r: r.contracts,
    MetricName.AVG_GAS_PRICE: _avg_gas_price,
    MetricName.MAX_GAS_PRICE: lambda r: json_number(r.gas_price_max),
    MetricName.MAX_TPS: lambda r: r.max_tps,
    MetricName.MAX_GPS: lambda r: r.max_gps,
}


def merge(per_chain: dict[int, dict[int, BucketSums]]) -> dict[int, BucketSums]:
    """Per-bucket sums over chains: additive fields add, maxima take the largest."""
    if len(per_chain) == 1:
        return next(iter(per_chain.values()))
    out: dict[int, BucketSums] = {}
    for rows in per_chain.values():
        for t, r in rows.items():
            out.setdefault(t, BucketSums()).add(r)
    return out


# The metric_sums columns each metric reads (a request never loads the others).
NEEDS: dict[MetricName, tuple[str, ...]] = {
    MetricName.TX_COUNT: ("txs",),
    MetricName.GAS_USED: ("gas_used",),
    MetricName.FEES_PAID: ("fees",),
    MetricName.CONTRACTS: ("contracts",),
    MetricName.AVG_GAS_PRICE: ("txs", "gas_price_sum"),
    MetricName.MAX_GAS_PRICE: ("gas_price_max",),
    MetricName.MAX_TPS: ("max_tps",),
    MetricName.MAX_GPS: ("max_gps",),
    MetricName.AVG_TPS: ("blocks", "txs", "first_ts", "last_ts", "first_ms", "last_ms"),
    MetricName.AVG_GPS: ("blocks", "gas_used", "first_ts", "last_ts", "first_ms", "last_ms"),
    MetricName.CUMULATIVE_TX_COUNT: ("txs",),
    MetricName.CUMULATIVE_CONTRACTS: ("contracts",),
}


U256_COLUMNS = frozenset({"fees", "gas_price_sum", "gas_price_max"})

# Metrics read from one column: (column, how chains combine). The fast path of hourly pages.
ONE_COLUMN: dict[MetricName, tuple[str, Callable[[Iterable[Number]], Number]]] = {
    MetricName.TX_COUNT: ("txs", sum),
    MetricName.GAS_USED: ("gas_used", sum),
    MetricName.FEES_PAID: ("fees", sum),
    MetricName.CONTRACTS: ("contracts", sum),
    MetricName.MAX_GAS_PRICE: ("gas_price_max", max),
    MetricName.MAX_TPS: ("max_tps", max),
    MetricName.MAX_GPS: ("max_gps", max),
}


def one_column(
    metric: MetricName, per_chain_rows: Iterable[Sequence[Any]], stamps: list[int]
) -> list[tuple[int, Number]]:
    """(bucket, value) for each of `stamps` of a ONE_COLUMN metric, from each chain's rows
    (bucket, column value); a bucket without a row is 0."""
    column, combine = ONE_COLUMN[metric]
    big = column in U256_COLUMNS
    per_chain = [{int(r[0]): int(r[1]) if big else r[1] for r in rows} for rows in per_chain_rows]
    values: dict[int, Number]
    if len(per_chain) == 1:
        values = per_chain[0]
    else:
        values = {}
        for t in {t for d in per_chain for t in d}:
            values[t] = combine(d[t] for d in per_chain if t in d)
    zero: Number = 0.0 if column in ("max_tps", "max_gps") else 0
    if big:
        # Convert each stored value once (there are at most as many as stamps), then fill.
        values = {t: v if v <= _MAX_EXACT else float(v) for t, v in values.items()}
        zero = 0
    get = values.get
    return [(t, get(t, zero)) for t in stamps]


def sums_by_bucket(
    rows: Iterable[Sequence[Any]], columns: tuple[str, ...]
) -> dict[int, BucketSums]:
    """Rows (bucket, *columns) as each bucket's sums. U256 columns arrive as the engine stores
    them (text or NUMERIC) and become ints here, as coltypes.U256 would."""
    big = [i for i, c in enumerate(columns) if c in U256_COLUMNS]
    out: dict[int, BucketSums] = {}
    for r in rows:
        values = list(r[1:])
        for i in big:
            values[i] = int(values[i])
        out[int(r[0])] = BucketSums(**dict(zip(columns, values, strict=True)))
    return out
