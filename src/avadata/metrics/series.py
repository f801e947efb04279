"""The arithmetic of metric series: what a `{chainId}` names, which counts a distinct metric
reads, running totals and the average rates.

Stage: metrics (pure). `store/metrics/series_reads.py` reads the rollup rows and calls these.

Series are dense: every bucket from the scope's first rolled-up bucket to its newest one has a
point (0 when nothing happened), newest first. Aggregate scopes (total, mainnet, testnet) add
per-chain sums, take distinct counts from their own membership rows (exact across chains), and
for the rates: avg* add the chains' rates, max* take the largest per-block sample of any chain.
"""

from __future__ import annotations

from dataclasses import dataclass

from avadata.metrics.catalog import MetricName
from avadata.metrics.rollup import (
    FIRST_ADDRESS,
    FIRST_DEPLOYER,
    KIND_ACTIVE,
    KIND_DEPLOYER,
    KIND_SENDER,
    BucketSums,
    Stamp,
    span_rate,
)
from avadata.metrics.sums import Number

# Distinct metrics: the kind of their count rows, per bucket or (cumulative) first sightings.
DISTINCT = {
    MetricName.ACTIVE_ADDRESSES: KIND_ACTIVE,
    MetricName.ACTIVE_SENDERS: KIND_SENDER,
    MetricName.DEPLOYERS: KIND_DEPLOYER,
}
CUMULATIVE_DISTINCT = {
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


def running(
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


def avg_rates(
    per_chain: dict[int, dict[int, BucketSums]],
    last_before: dict[int, Stamp | None],
    stamps_desc: list[int],
    tps: bool,
) -> list[tuple[int, Number]]:
    """avgTps/avgGps per day, added up over the scope's chains.

    The span runs from the last block before the day (the previous day's last block, or an
    earlier one across days without blocks; `last_before` holds each chain's last block's
    time before the oldest day) to the day's last block; on the first day with blocks there
    is no earlier block, so it runs from the day's first block. Spans are in milliseconds
    where both ends' headers carry them (`rollup.span_rate`).
    """
    values = dict.fromkeys(stamps_desc, 0.0)
    for chain_id, rows in per_chain.items():
        prev = last_before[chain_id]
        for t in reversed(stamps_desc):
            r = rows.get(t)
            if r is None or r.blocks == 0 or r.last_ts is None or r.first_ts is None:
                continue
            start = prev if prev is not None else (r.first_ts, r.first_ms)
            prev = (r.last_ts, r.last_ms)
            values[t] += span_rate(r.txs if tps else r.gas_used, start, prev)
    return [(t, values[t]) for t in stamps_desc]
