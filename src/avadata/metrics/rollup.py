"""EvmBatch -> rollup changes: what one batch contributes to the metric buckets (pure).

Stage: metrics (pure; imports no store module, so the fetch process can run it beside
decoding). `store/metrics/rollup_writer.py` writes these changes inside the store writer's
transaction, and `store/metrics/rebuild.py` feeds it rows read back from the store.

Invariants:
- a block's additive contributions (txs, gas, fees, gas prices, contracts) are carried by one
  `BlockStats` keyed by block number, so the applier adds them only when that block is new;
- distinct-count inputs are each address's distinct bucket starts, ascending: membership is
  idempotent by itself;
- deployer = the `from` of the creating frame (the factory for a nested CREATE), per the seed;
- a creation counts when its frame did not revert (a reverted CREATE leaves no contract).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import groupby
from operator import attrgetter
from typing import Protocol

from avadata.metrics.buckets import ALL_INTERVALS, HOUR, Interval, start
from avadata.records import EvmBatch

# The kinds of distinct count (the `kind` of the membership and count rows): members of a
# bucket, and first sightings per day.
KIND_ACTIVE = "a"
KIND_SENDER = "s"
KIND_DEPLOYER = "d"
FIRST_ADDRESS = "A"
FIRST_DEPLOYER = "D"


@dataclass(frozen=True, slots=True)
class BlockStats:
    """One block's additive contributions to every metric."""

    number: int
    timestamp: int
    tx_count: int
    # Sum of the receipts' gasUsed (equals the header's gasUsed).
    gas_used: int
    # Sum of gasUsed * effective gas price over the receipts (wei).
    fees: int
    gas_price_sum: int
    # 0 for a block without transactions (0 is never larger than a real price).
    gas_price_max: int
    contracts: int
    # The header's timeMilliseconds (sub-second blocks), None where it has none.
    time_ms: int | None = None


# Each address's distinct bucket starts in a batch, ascending. Grouped here, where the batch
# is decoded (the fetch process), rather than as (bucket, address) pairs: the writer counts
# per address (store/metrics/last_seen.py), and the grouping and the pairs' crossing as tuples
# were on its side (docs/benchmarks.md).
Buckets = dict[str, list[int]]


@dataclass(slots=True)
class RollupChanges:
    chain_id: int
    blocks: list[BlockStats] = field(default_factory=list)
    # Hours of the from/to of txs and transfers ("a"), of the from only ("s").
    active: Buckets = field(default_factory=dict)
    senders: Buckets = field(default_factory=dict)
    # Days of deployers: deployers are a day-only metric.
    deployers: Buckets = field(default_factory=dict)


@dataclass(slots=True)
class BucketSums:
    """Additive sums of one (interval, bucket); `merge` folds a block in."""

    blocks: int = 0
    txs: int = 0
    gas_used: int = 0
    fees: int = 0
    gas_price_sum: int = 0
    gas_price_max: int = 0
    contracts: int = 0
    first_ts: int | None = None
    last_ts: int | None = None
    # Largest maxTps / maxGps sample seen in the bucket (see `block_sample`).
    max_tps: float = 0.0
    max_gps: float = 0.0
    # The timeMilliseconds of the bucket's first and last block (sub-second blocks, ACP-226);
    # None where that block's header has none (or it was rolled up before revision 0023).
    first_ms: int | None = None
    last_ms: int | None = None

    def sample(self, tps: float, gps: float) -> None:
        self.max_tps = max(self.max_tps, tps)
        self.max_gps = max(self.max_gps, gps)

    def merge(self, b: BlockStats) -> None:
        """Fold in `b`, a block after every block folded in so far (a chain's blocks arrive
        in order): on a timestamp tie the earlier block stays first and `b` becomes last."""
        self.blocks += 1
        self.txs += b.tx_count
        self.gas_used += b.gas_used
        self.fees += b.fees
        self.gas_price_sum += b.gas_price_sum
        self.gas_price_max = max(self.gas_price_max, b.gas_price_max)
        self.contracts += b.contracts
        self._ends(b.timestamp, b.time_ms, b.timestamp, b.time_ms)

    def add(self, o: BucketSums) -> None:
        """Fold in `o`: of the same chain, its blocks come after these (ties as in `merge`);
        over several chains only the timestamps' min and max mean anything."""
        self.blocks += o.blocks
        self.txs += o.txs
        self.gas_used += o.gas_used
        self.fees += o.fees
        self.gas_price_sum += o.gas_price_sum
        self.gas_price_max = max(self.gas_price_max, o.gas_price_max)
        self.contracts += o.contracts
        if o.first_ts is not None and o.last_ts is not None:
            self._ends(o.first_ts, o.first_ms, o.last_ts, o.last_ms)
        self.sample(o.max_tps, o.max_gps)

    def _ends(self, first: int, first_ms: int | None, last: int, last_ms: int | None) -> None:
        if self.first_ts is None or first < self.first_ts:
            self.first_ts, self.first_ms = first, first_ms
        if self.last_ts is None or last >= self.last_ts:
            self.last_ts, self.last_ms = last, last_ms


class BlockLike(Protocol):
    @property
    def number(self) -> int: ...
    @property
    def timestamp(self) -> int: ...
    @property
    def time_ms(self) -> int | None: ...


class TxLike(Protocol):
    @property
    def block_number(self) -> int: ...
    @property
    def block_timestamp(self) -> int: ...
    @property
    def from_address(self) -> str: ...
    @property
    def to_address(self) -> str | None: ...
    @property
    def gas_used(self) -> int: ...
    @property
    def gas_price(self) -> int: ...


class TransferLike(Protocol):
    @property
    def block_timestamp(self) -> int: ...
    @property
    def from_address(self) -> str: ...
    @property
    def to_address(self) -> str: ...


class CreationLike(Protocol):
    @property
    def block_number(self) -> int: ...
    @property
    def block_timestamp(self) -> int: ...
    @property
    def deployer(self) -> str: ...
    @property
    def deployer_contract(self) -> str | None: ...


def deployer_of(c: CreationLike) -> str:
    """The seed's deployer: the creating frame's from (a factory when nested, else the sender)."""
    return c.deployer_contract or c.deployer


def changes(batch: EvmBatch) -> RollupChanges:
    """Everything `batch` contributes to the rollups."""
    return changes_of(
        batch.chain_id, batch.blocks, batch.transactions, batch.transfers, batch.contracts
    )


def changes_of(
    chain_id: int,
    blocks: Iterable[BlockLike],
    transactions: Iterable[TxLike],
    transfers: Iterable[TransferLike],
    contracts: Iterable[CreationLike],
) -> RollupChanges:
    """`changes` over any records with the fields it reads (the rebuild passes stored rows)."""
    out = RollupChanges(chain_id=chain_id)
    transactions = list(transactions)
    txs_by_block: dict[int, list[TxLike]] = {}
    for t in transactions:
        txs_by_block.setdefault(t.block_number, []).append(t)
    creations: dict[int, int] = {}
    deployers: dict[str, set[int]] = {}
    for c in contracts:
        creations[c.block_number] = creations.get(c.block_number, 0) + 1
        _note(deployers, deployer_of(c), start(c.block_timestamp, Interval.DAY))
    out.deployers = _ascending(deployers)
    for b in blocks:
        txs = txs_by_block.get(b.number, [])
        out.blocks.append(
            BlockStats(
                number=b.number,
                timestamp=b.timestamp,
                tx_count=len(txs),
                gas_used=sum(t.gas_used for t in txs),
                fees=sum(t.gas_used * t.gas_price for t in txs),
                gas_price_sum=sum(t.gas_price for t in txs),
                gas_price_max=max((t.gas_price for t in txs), default=0),
                contracts=creations.get(b.number, 0),
                time_ms=b.time_ms,
            )
        )
    _participants(out, transactions, transfers)
    return out


def _participants(
    out: RollupChanges, txs: Iterable[TxLike], transfers: Iterable[TransferLike]
) -> None:
    # Each hour's addresses first, then each address's hours (`_by_address`): records come in
    # runs of one block (one timestamp), whose addresses go into the hour's sets by `map`
    # rather than one Python step per record and address (every transaction and transfer of
    # a backfill passes here, in the fetch process).
    active: dict[int, set[str]] = {}
    senders: dict[int, set[str]] = {}
    for ts, run in groupby(txs, _TIMESTAMP):
        hour = ts - ts % HOUR
        same = list(run)
        froms = set(map(_FROM, same))
        tos = set(map(_TO, same))
        tos.discard(None)  # a creation has no `to`
        _hour_set(active, hour).update(froms, tos)
        _hour_set(senders, hour).update(froms)
    for ts, moves in groupby(transfers, _TIMESTAMP):
        hour = ts - ts % HOUR
        moved = list(moves)
        froms = set(map(_FROM, moved))
        _hour_set(active, hour).update(froms, map(_TO, moved))
        _hour_set(senders, hour).update(froms)
    out.active = _by_address(active)
    out.senders = _by_address(senders)


_TIMESTAMP = attrgetter("block_timestamp")
_FROM = attrgetter("from_address")
_TO = attrgetter("to_address")


def _hour_set(by_hour: dict[int, set[str]], hour: int) -> set[str]:
    got = by_hour.get(hour)
    if got is None:
        got = by_hour[hour] = set()
    return got


def _by_address(by_bucket: dict[int, set[str]]) -> Buckets:
    """{bucket: addresses} as each address's buckets, ascending."""
    out: Buckets = {}
    for bucket in sorted(by_bucket):
        for a in by_bucket[bucket]:
            got = out.get(a)
            if got is None:
                out[a] = [bucket]
            else:
                got.append(bucket)
    return out


def _note(buckets: dict[str, set[int]], address: str, bucket: int) -> None:
    got = buckets.get(address)
    if got is None:
        buckets[address] = {bucket}
    else:
        got.add(bucket)


def _ascending(sets: dict[str, set[int]]) -> Buckets:
    return {a: sorted(bs) for a, bs in sets.items()}


def bucket_sums(blocks: Iterable[BlockStats]) -> dict[tuple[Interval, int], BucketSums]:
    """The blocks' sums per (interval, bucket start), for all four intervals."""
    out: dict[tuple[Interval, int], BucketSums] = {}
    for b in blocks:
        for interval in ALL_INTERVALS:
            key = (interval, start(b.timestamp, interval))
            out.setdefault(key, BucketSums()).merge(b)
    return out


def rate(amount: int, seconds: int) -> float:
    """amount per second; 0.0 for an empty or non-positive span (see docs/metrics.md)."""
    return amount / seconds if seconds > 0 else 0.0


# A block's time: (timestamp in seconds, timeMilliseconds or None).
Stamp = tuple[int, int | None]


def span_rate(amount: int, start: Stamp, end: Stamp) -> float:
    """avgTps/avgGps: amount per second over the span from `start` to `end`, in milliseconds
    where both ends carry them (sub-second blocks), else in whole seconds; 0.0 for an empty
    or non-positive span."""
    (start_s, start_ms), (end_s, end_ms) = start, end
    if start_ms is not None and end_ms is not None:
        return amount * 1000 / (end_ms - start_ms) if end_ms > start_ms else 0.0
    return rate(amount, end_s - start_s)


def block_sample(
    amount: int,
    timestamp: int,
    prev_timestamp: int,
    time_ms: int | None = None,
    prev_time_ms: int | None = None,
) -> float:
    """One maxTps/maxGps sample: `amount` over the time since the previous block.

    Where both headers carry timeMilliseconds (sub-second blocks, ACP-226) the time is theirs,
    at least one millisecond. Otherwise timestamps have one-second resolution, so a block
    stamped in the same second as its parent (or, defensively, earlier) counts one second:
    the sample stays finite and comparable (on a sub-second chain without millisecond
    headers, every block of a second then counts a whole second: maxTps too low).
    """
    if time_ms is not None and prev_time_ms is not None:
        return amount * 1000 / max(time_ms - prev_time_ms, 1)
    return amount / max(timestamp - prev_timestamp, 1)
