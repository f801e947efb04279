"""An independent recomputation of the 17 metrics, written straight from the seed's table.

Brute force over plain per-block facts (no rollup tables, no avadata.metrics import): the
tests feed it facts built from the node's raw JSON-RPC answers (devnet) or from the same random
plan that produced the records (unit tests), and compare with what the API/series return.

Decisions that the seed leaves open follow docs/metrics.md (one place, read by both sides):
- a series is dense from the scope's first block's bucket to its last block's bucket;
- maxTps/maxGps: time since the previous block of the same chain, at least 1 s; the chain's
  first block has no sample;
- avgTps/avgGps: span from the last block before the day (else the day's first block) to the
  day's last block; 0 for an empty day or a zero span; aggregates add the chains' rates;
- cumulativeContracts counts creations strictly before the timestamp (the seed's wording).
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

CUMULATIVE = {
    "cumulativeTxCount",
    "cumulativeAddresses",
    "cumulativeContracts",
    "cumulativeDeployers",
}


@dataclass
class OTx:
    sender: str
    to: str | None
    gas_used: int
    gas_price: int


@dataclass
class OBlock:
    chain_id: int
    number: int
    timestamp: int
    txs: list[OTx] = field(default_factory=list)
    # (from, to) of every ERC-20/721/1155 transfer (each id of a TransferBatch counts alike).
    transfers: list[tuple[str, str]] = field(default_factory=list)
    # `from` of every successful CREATE/CREATE2/CREATE3 frame.
    creators: list[str] = field(default_factory=list)


def bucket_of(ts: int, interval: str) -> int:
    d = datetime.fromtimestamp(ts, UTC)
    if interval == "hour":
        d = d.replace(minute=0, second=0)
    elif interval == "day":
        d = d.replace(hour=0, minute=0, second=0)
    elif interval == "week":
        d = d.replace(hour=0, minute=0, second=0) - timedelta(days=d.weekday())
    elif interval == "month":
        d = d.replace(day=1, hour=0, minute=0, second=0)
    else:
        raise ValueError(interval)
    return int(d.timestamp())


def next_bucket(b: int, interval: str) -> int:
    d = datetime.fromtimestamp(b, UTC)
    if interval == "month":
        return int(d.replace(year=d.year + d.month // 12, month=d.month % 12 + 1).timestamp())
    step = {"hour": 3600, "day": 86400, "week": 7 * 86400}[interval]
    return b + step


def series(blocks: list[OBlock], metric: str, interval: str) -> dict[int, float]:
    """{bucket start: value} for every bucket of the blocks' span (blocks of 1+ chains)."""
    if not blocks:
        return {}
    blocks = sorted(blocks, key=lambda b: (b.timestamp, b.chain_id, b.number))
    stamps = [b.timestamp for b in blocks]
    first = bucket_of(min(b.timestamp for b in blocks), interval)
    last = bucket_of(max(b.timestamp for b in blocks), interval)
    out: dict[int, float] = {}
    b = first
    while b <= last:
        end = next_bucket(b, interval)
        i, j = bisect_left(stamps, b), bisect_left(stamps, end)
        out[b] = value(blocks, metric, b, end, inside=blocks[i:j], upto_end=blocks[:j])
        b = end
    return out


def _addresses(blocks: list[OBlock], senders_only: bool) -> set[str]:
    s: set[str] = set()
    for b in blocks:
        for t in b.txs:
            s.add(t.sender)
            if t.to is not None and not senders_only:
                s.add(t.to)
        for f, to in b.transfers:
            s.add(f)
            if not senders_only:
                s.add(to)
    return s


def value(
    blocks: list[OBlock],
    metric: str,
    lo: int,
    hi: int,
    *,
    inside: list[OBlock],
    upto_end: list[OBlock],
) -> float:
    """The metric over blocks with lo <= timestamp < hi (`inside`); `upto_end` are the blocks
    from genesis to hi (cumulative values run to 24 h after a day's start)."""
    txs = [t for b in inside for t in b.txs]
    if metric == "activeAddresses":
        return len(_addresses(inside, False))
    if metric == "activeSenders":
        return len(_addresses(inside, True))
    if metric == "txCount":
        return len(txs)
    if metric == "gasUsed":
        return sum(t.gas_used for t in txs)
    if metric == "feesPaid":
        return sum(t.gas_used * t.gas_price for t in txs)
    if metric == "avgGasPrice":
        return sum(t.gas_price for t in txs) / len(txs) if txs else 0
    if metric == "maxGasPrice":
        return max((t.gas_price for t in txs), default=0)
    if metric == "contracts":
        return sum(len(b.creators) for b in inside)
    if metric == "deployers":
        return len({c for b in inside for c in b.creators})
    if metric == "cumulativeTxCount":
        return sum(len(b.txs) for b in upto_end)
    if metric == "cumulativeAddresses":
        return len(_addresses(upto_end, False))
    if metric == "cumulativeDeployers":
        return len({c for b in upto_end for c in b.creators})
    if metric == "cumulativeContracts":
        return sum(len(b.creators) for b in blocks if b.timestamp < lo)
    chains = sorted({b.chain_id for b in blocks})
    if metric in ("maxTps", "maxGps"):
        best = 0.0
        for c in chains:
            by_number = {b.number: b for b in blocks if b.chain_id == c}
            for b in inside:
                prev = by_number.get(b.number - 1)
                if b.chain_id != c or prev is None:
                    continue
                amount = len(b.txs) if metric == "maxTps" else sum(t.gas_used for t in b.txs)
                best = max(best, amount / max(b.timestamp - prev.timestamp, 1))
        return best
    if metric in ("avgTps", "avgGps"):
        total = 0.0
        for c in chains:
            day = [b for b in inside if b.chain_id == c]
            if not day:
                continue
            before = [b.timestamp for b in blocks if b.chain_id == c and b.timestamp < lo]
            ref = max(before) if before else min(b.timestamp for b in day)
            span = max(b.timestamp for b in day) - ref
            amount = sum(
                len(b.txs) if metric == "avgTps" else sum(t.gas_used for t in b.txs) for b in day
            )
            total += amount / span if span > 0 else 0.0
        return total
    raise ValueError(metric)
