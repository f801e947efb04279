"""Apply rollup changes inside the store writer's transaction: the metrics rollup's writing half.

Stage: store (writes only the metric_* tables). The indexer's metrics applier is a
SplitApplier of `metrics.rollup.changes` (its pure half, run where the batch is decoded) and
`apply_changes` (this half); tests and the benchmark pass `apply_metrics` to
`store.writer.write_evm_batch(..., appliers=[apply_metrics])`. It runs after the batch's rows
and before the cursor moves, in the same transaction, so rows, rollups and cursor commit
together.

Invariants (why a replayed or re-indexed range changes nothing):
- additive sums move only for blocks whose `metric_blocks` row was new (INSERT .. ON CONFLICT
  DO NOTHING .. RETURNING says which), and max samples are idempotent;
- distinct counts move only for what is new (membership.py);
- each row's running totals (run_*) are those of the buckets before it plus its own, carried
  forward from the first bucket a batch changes.
Sums are read FOR UPDATE first, so two writers (two chains feeding `total` on PostgreSQL)
serialise instead of losing updates.
"""

from __future__ import annotations

from functools import cache

from sqlalchemy import (
    BigInteger,
    BindParameter,
    Connection,
    Select,
    bindparam,
    func,
    select,
)

from avadata.metrics.buckets import ALL_INTERVALS, Interval, start
from avadata.metrics.rolling import RUNNING_FIELDS, running_totals
from avadata.metrics.rollup import (
    BlockStats,
    BucketSums,
    RollupChanges,
    block_sample,
    bucket_sums,
    changes,
)
from avadata.records import EvmBatch
from avadata.store import dialect
from avadata.store.batch_cache import Carried
from avadata.store.metrics.driver_sql import insert_new
from avadata.store.metrics.membership import distinct, materialize
from avadata.store.metrics.scope_rows import scopes_for
from avadata.store.schema import metric_blocks, metric_sums


def apply_metrics(conn: Connection, batch: EvmBatch) -> None:
    """The store-writer applier: roll `batch` up (an `Applier` for write_evm_batch)."""
    apply_changes(conn, changes(batch))


def apply_changes(conn: Connection, ch: RollupChanges, carried: Carried | None = None) -> None:
    """`carried`: the last active buckets the writer's earlier batches left (last_seen.py)."""
    scopes = scopes_for(conn, ch.chain_id, materialize)
    new_blocks = _insert_blocks(conn, ch.chain_id, ch.blocks)
    deltas = bucket_sums(new_blocks)
    _add_samples(conn, ch.chain_id, new_blocks, deltas)
    _write_sums(conn, ch.chain_id, deltas)
    distinct(conn, scopes, ch, carried)


def _insert_blocks(conn: Connection, chain_id: int, blocks: list[BlockStats]) -> list[BlockStats]:
    """Insert the blocks' rows; return the blocks that were not stored before."""
    if not blocks:
        return []
    rows = [(chain_id, b.number, b.timestamp, b.tx_count, b.gas_used, b.time_ms) for b in blocks]
    new = {
        int(r[0])
        for r in insert_new(
            conn,
            metric_blocks.name,
            ("chain_id", "number", "timestamp", "tx_count", "gas_used", "time_ms"),
            rows,
            ("number",),
        )
    }
    return [b for b in blocks if b.number in new]


def _add_samples(
    conn: Connection,
    chain_id: int,
    new_blocks: list[BlockStats],
    deltas: dict[tuple[Interval, int], BucketSums],
) -> None:
    """maxTps/maxGps samples of the new blocks and of the block right after each of them.

    The follower's sample changes when its previous block arrives late; a sample only ever
    grows as blocks fill in, so keeping the max of old and new samples stays exact.
    """
    if not new_blocks:
        return
    numbers = {b.number for b in new_blocks}
    candidates = numbers | {n + 1 for n in numbers}
    lo, hi = min(numbers) - 1, max(numbers) + 1
    known = {
        r.number: (r.timestamp, r.tx_count, r.gas_used, r.time_ms)
        for r in conn.execute(_blocks_between(), {"chain_id": chain_id, "lo": lo, "hi": hi})
    }
    for n in sorted(candidates):
        if n not in known or n - 1 not in known:
            continue
        ts, txs, gas, ms = known[n]
        prev_ts, prev_ms = known[n - 1][0], known[n - 1][3]
        tps = block_sample(txs, ts, prev_ts, ms, prev_ms)
        gps = block_sample(gas, ts, prev_ts, ms, prev_ms)
        for interval in ALL_INTERVALS:
            deltas.setdefault((interval, start(ts, interval)), BucketSums()).sample(tps, gps)


_SUM_COLS = (
    "blocks",
    "txs",
    "gas_used",
    "fees",
    "gas_price_sum",
    "gas_price_max",
    "contracts",
    "first_ts",
    "last_ts",
    "max_tps",
    "max_gps",
    "first_ms",
    "last_ms",
)
_RUN_COLS = tuple(f"run_{f}" for f in RUNNING_FIELDS)
_KEY_COLS = ("chain_id", "interval", "bucket")
_NEW_COLS = _KEY_COLS + _SUM_COLS
# A new bucket's sums before its blocks are added: no block's time seen yet (NULL).
_NO_BLOCK_YET = ("first_ts", "last_ts", "first_ms", "last_ms")
_ZERO = tuple(
    None if c in _NO_BLOCK_YET else 0.0 if c in ("max_tps", "max_gps") else 0 for c in _SUM_COLS
)
_UPDATE_COLS = _KEY_COLS + _SUM_COLS + _RUN_COLS


def _write_sums(
    conn: Connection, chain_id: int, deltas: dict[tuple[Interval, int], BucketSums]
) -> None:
    """Add `deltas` to the stored sums (read-modify-write: U256 is never summed in SQL) and
    carry the running totals from the bucket before the first changed one onwards: a chain's
    new blocks come after its stored ones, so that is the changed buckets alone."""
    if not deltas:
        return
    new = [(chain_id, i.code, b, *_ZERO) for i, b in deltas]
    dialect.bulk_insert_ignore(conn, metric_sums, _NEW_COLS, new)
    by_interval: dict[Interval, dict[int, BucketSums]] = {}
    for (interval, bucket), d in deltas.items():
        by_interval.setdefault(interval, {})[bucket] = d
    updates: list[tuple[object, ...]] = []
    for interval, changed in by_interval.items():
        before, rows = _rows_from(conn, chain_id, interval, min(changed))
        for bucket, row in rows:
            if bucket in changed:
                row.add(changed[bucket])
        runs = running_totals(before, (r[1] for r in rows))
        for (bucket, row), run in zip(rows, runs, strict=True):
            sums = tuple(getattr(row, c) for c in _SUM_COLS)
            updates.append((chain_id, interval.code, bucket, *sums, *run))
    dialect.update_rows(conn, metric_sums, _KEY_COLS, _UPDATE_COLS, updates)


# The statements every batch runs, built once with bound parameters. Why: built per batch,
# SQLAlchemy constructed each (an alias's column proxies, coercions) and computed its cache
# key again before finding the compiled form: a sizeable share of this module's Python in a
# backfill (docs/benchmarks.md); a statement object keeps its cache key.


@cache
def _blocks_between() -> Select[tuple[int, int, int, int, int | None]]:
    mb = metric_blocks.c
    return select(mb.number, mb.timestamp, mb.tx_count, mb.gas_used, mb.time_ms).where(
        mb.chain_id == bindparam("chain_id"),
        mb.number.between(bindparam("lo"), bindparam("hi")),
    )


@cache
def _sums_from() -> Select[tuple[object, ...]]:
    """A chain's sums of one interval from its last bucket before `lo` on, locked."""
    s, p = metric_sums.c, metric_sums.alias("prev").c  # the alias: no correlation
    chain: BindParameter[int] = bindparam("chain_id")
    interval: BindParameter[str] = bindparam("interval")
    lo = bindparam("lo", type_=BigInteger)
    prev = select(func.max(p.bucket)).where(
        p.chain_id == chain, p.interval == interval, p.bucket < lo
    )
    return (
        select(metric_sums)
        .where(
            s.chain_id == chain,
            s.interval == interval,
            s.bucket >= func.coalesce(prev.scalar_subquery(), lo),
        )
        .order_by(s.bucket)
        .with_for_update()
    )


def _rows_from(
    conn: Connection, chain_id: int, interval: Interval, lo: int
) -> tuple[tuple[int, ...] | None, list[tuple[int, BucketSums]]]:
    """The running totals through the chain's last bucket before `lo` (None: none) and its
    stored buckets from `lo` on, ascending, locked for the update."""
    before = None
    rows = []
    for r in conn.execute(
        _sums_from(), {"chain_id": chain_id, "interval": interval.code, "lo": lo}
    ):
        if r.bucket < lo:
            before = tuple(int(getattr(r, c)) for c in _RUN_COLS)
            continue
        rows.append((int(r.bucket), BucketSums(**{c: getattr(r, c) for c in _SUM_COLS})))
    return before, rows
