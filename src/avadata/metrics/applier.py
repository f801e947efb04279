"""Apply rollup changes inside the store writer's transaction: the metrics applier.

Stage: metrics (writes only the metric_* tables). The indexer passes `apply_metrics` to
`store.writer.write_evm_batch(..., appliers=[apply_metrics])`; it runs after the batch's rows
and before the cursor moves, in the same transaction, so rows, rollups and cursor commit
together.

Invariants (why a replayed or re-indexed range changes nothing):
- additive sums move only for blocks whose `metric_blocks` row was new (INSERT .. ON CONFLICT
  DO NOTHING .. RETURNING says which), and max samples are idempotent;
- a chain's distinct counts move only for buckets after each address's last active hour
  (lastseen.py: a chain's blocks arrive in order), so a replay counts nothing;
- an aggregate of several chains counts only membership rows that were new, per (scope, kind,
  interval, bucket); an existing hour row implies its day/week/month rows and its wider scope's
  rows, so only new rows cascade to the coarser interval and to the wider scope;
- an aggregate's first sightings keep the earliest day; moving one moves one count.
All counter updates are `count = count + n` in SQL, and sums are read FOR UPDATE first, so two
writers (two chains feeding `total` on PostgreSQL) serialise instead of losing updates.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Connection, and_, bindparam, select, tuple_, update

from avadata.metrics import lastseen
from avadata.metrics.buckets import ALL_INTERVALS, Interval, start
from avadata.metrics.rollup import (
    BlockStats,
    Buckets,
    BucketSums,
    RollupChanges,
    block_sample,
    bucket_sums,
    changes,
)
from avadata.metrics.scopes import scopes_for
from avadata.metrics.sqlfast import insert_new
from avadata.metrics.stored import stored_changes
from avadata.records import EvmBatch
from avadata.store import dialect
from avadata.store.carried import Carried
from avadata.store.schema import (
    metric_blocks,
    metric_counts,
    metric_first_seen,
    metric_members,
    metric_sums,
)

# Keys per IN (...) lookup: far below SQLite's bound-parameter limit.
_CHUNK = 500

KIND_ACTIVE = "a"
KIND_SENDER = "s"
KIND_DEPLOYER = "d"
FIRST_ADDRESS = "A"
FIRST_DEPLOYER = "D"


def apply_metrics(conn: Connection, batch: EvmBatch) -> None:
    """The store-writer applier: roll `batch` up (an `Applier` for write_evm_batch)."""
    apply_changes(conn, changes(batch))


def apply_changes(conn: Connection, ch: RollupChanges, carried: Carried | None = None) -> None:
    """`carried`: the last active buckets the writer's earlier batches left (lastseen.py)."""
    scopes = scopes_for(conn, ch.chain_id, materialize)
    new_blocks = _insert_blocks(conn, ch.chain_id, ch.blocks)
    deltas = bucket_sums(new_blocks)
    _add_samples(conn, ch.chain_id, new_blocks, deltas)
    _write_sums(conn, ch.chain_id, deltas)
    _distinct(conn, scopes, ch, carried)


def _chunks(items: Sequence[Any], n: int = _CHUNK) -> Iterable[Sequence[Any]]:
    for i in range(0, len(items), n):
        yield items[i : i + n]


def _insert_blocks(conn: Connection, chain_id: int, blocks: list[BlockStats]) -> list[BlockStats]:
    """Insert the blocks' rows; return the blocks that were not stored before."""
    if not blocks:
        return []
    rows = [(chain_id, b.number, b.timestamp, b.tx_count, b.gas_used) for b in blocks]
    new = {
        int(r[0])
        for r in insert_new(
            conn,
            metric_blocks.name,
            ("chain_id", "number", "timestamp", "tx_count", "gas_used"),
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
    mb = metric_blocks.c
    known = {
        r.number: (r.timestamp, r.tx_count, r.gas_used)
        for r in conn.execute(
            select(mb.number, mb.timestamp, mb.tx_count, mb.gas_used).where(
                mb.chain_id == chain_id, mb.number.between(lo, hi)
            )
        )
    }
    for n in sorted(candidates):
        if n not in known or n - 1 not in known:
            continue
        ts, txs, gas = known[n]
        prev_ts = known[n - 1][0]
        tps, gps = block_sample(txs, ts, prev_ts), block_sample(gas, ts, prev_ts)
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
)


def _write_sums(
    conn: Connection, chain_id: int, deltas: dict[tuple[Interval, int], BucketSums]
) -> None:
    """Add `deltas` to the stored sums (read-modify-write: U256 is never summed in SQL)."""
    if not deltas:
        return
    s = metric_sums.c
    zero = {c: 0 for c in _SUM_COLS} | {"first_ts": None, "last_ts": None, "max_tps": 0.0}
    zero["max_gps"] = 0.0
    keys = [(i.code, b) for i, b in deltas]
    conn.execute(
        dialect.insert_or_ignore(conn, metric_sums),
        [{"chain_id": chain_id, "interval": i, "bucket": b, **zero} for i, b in keys],
    )
    stored: dict[tuple[str, int], BucketSums] = {}
    for part in _chunks(keys):
        q = (
            select(metric_sums)
            .where(s.chain_id == chain_id, tuple_(s.interval, s.bucket).in_(list(part)))
            .with_for_update()
        )
        for r in conn.execute(q):
            stored[(r.interval, r.bucket)] = BucketSums(
                blocks=r.blocks,
                txs=r.txs,
                gas_used=r.gas_used,
                fees=r.fees,
                gas_price_sum=r.gas_price_sum,
                gas_price_max=r.gas_price_max,
                contracts=r.contracts,
                first_ts=r.first_ts,
                last_ts=r.last_ts,
                max_tps=r.max_tps,
                max_gps=r.max_gps,
            )
    params = []
    for (interval, bucket), d in deltas.items():
        row = stored[(interval.code, bucket)]
        row.add(d)
        params.append(
            {"k_chain": chain_id, "k_interval": interval.code, "k_bucket": bucket}
            | {c: getattr(row, c) for c in _SUM_COLS}
        )
    stmt = (
        update(metric_sums)
        .where(
            and_(
                s.chain_id == bindparam("k_chain"),
                s.interval == bindparam("k_interval"),
                s.bucket == bindparam("k_bucket"),
            )
        )
        .values({c: bindparam(c) for c in _SUM_COLS})
    )
    conn.execute(stmt, params)


Member = tuple[str, str, int, str]  # (kind, interval code, bucket, address)
Deltas = Counter[tuple[str, str, str, int]]  # (scope, kind, interval code, bucket) -> +n
_FIRST_KIND = {KIND_ACTIVE: FIRST_ADDRESS, KIND_DEPLOYER: FIRST_DEPLOYER}
_H, _D, _W, _M = (i.code for i in ALL_INTERVALS)


def _distinct(
    conn: Connection, scopes: list[str], ch: RollupChanges, carried: Carried | None
) -> None:
    """Distinct counts: the chain's own scope from its last-seen rows (lastseen.py), then the
    rows new there cascade into the aggregates' membership. One counter upsert in all."""
    deltas: Deltas = Counter()
    chain_scope, aggregates = scopes[0], scopes[1:]
    seen = lastseen.LastSeen(conn, ch.chain_id, chain_scope, deltas, bool(aggregates), carried)
    hours = seen.novelty(KIND_ACTIVE, Interval.HOUR, ch.active, FIRST_ADDRESS)
    hours |= seen.novelty(KIND_SENDER, Interval.HOUR, ch.senders, None)
    days = seen.novelty(KIND_DEPLOYER, Interval.DAY, ch.deployers, FIRST_DEPLOYER)
    _cascade(conn, aggregates, hours, days, deltas)
    _bump(conn, deltas)


def _cascade(
    conn: Connection,
    scopes: list[str],
    hours: set[Member],
    deployer_days: set[Member],
    deltas: Deltas,
) -> None:
    """Membership for aggregate scopes, cascading only new rows: hour -> day -> week and
    month, and network -> total (each scope contains the one before)."""
    for scope in scopes:
        if not hours and not deployer_days:
            break
        new_hours = _insert_members(conn, scope, hours, deltas)
        days = {(k, _D, start(b, Interval.DAY), a) for k, _, b, a in new_hours}
        new_days = _insert_members(conn, scope, days | deployer_days, deltas)
        coarse: set[Member] = set()
        for k, _, d, a in new_days:
            if k != KIND_DEPLOYER:  # deployers are a day-only metric
                coarse.add((k, _W, start(d, Interval.WEEK), a))
                coarse.add((k, _M, start(d, Interval.MONTH), a))
        _insert_members(conn, scope, coarse, deltas)
        _first_seen(conn, scope, new_days, deltas)
        hours = new_hours
        deployer_days = {m for m in new_days if m[0] == KIND_DEPLOYER}


def materialize(conn: Connection, key: str, chain_ids: tuple[int, ...]) -> None:
    """Build an aggregate scope's membership from its chains' stored rows (scopes.py calls
    this once per new set of chains, inside the writer's transaction)."""
    deltas: Deltas = Counter()
    for chain_id in chain_ids:
        for ch, _ in stored_changes(conn, chain_id):
            hours = _members(KIND_ACTIVE, _H, ch.active) | _members(KIND_SENDER, _H, ch.senders)
            days = _members(KIND_DEPLOYER, _D, ch.deployers)
            _cascade(conn, [key], hours, days, deltas)
    _bump(conn, deltas)


def _members(kind: str, code: str, buckets: Buckets) -> set[Member]:
    return {(kind, code, b, a) for a, bs in buckets.items() for b in bs}


def _insert_members(conn: Connection, scope: str, keys: set[Member], deltas: Deltas) -> set[Member]:
    """Insert-or-ignore membership rows; count and return the ones that were new."""
    rows = [(scope, k, i, b, a) for k, i, b, a in sorted(keys)]
    new: set[Member] = {
        (r[0], r[1], int(r[2]), r[3])
        for r in insert_new(
            conn,
            metric_members.name,
            ("scope", "kind", "interval", "bucket", "address"),
            rows,
            ("kind", "interval", "bucket", "address"),
        )
    }
    for k, i, b, _ in new:
        deltas[(scope, k, i, b)] += 1
    return new


def _bump(conn: Connection, deltas: Deltas) -> None:
    """count += delta per bucket, atomically in SQL (safe with concurrent writers)."""
    rows = [
        {"scope": sc, "kind": k, "interval": i, "bucket": b, "count": n}
        for (sc, k, i, b), n in sorted(deltas.items())
        if n != 0
    ]
    if not rows:
        return
    stmt = dialect.upsert(
        conn,
        metric_counts,
        keys=["scope", "kind", "interval", "bucket"],
        set_=lambda ex: {"count": metric_counts.c["count"] + ex["count"]},
    )
    conn.execute(stmt, rows)


def _first_seen(conn: Connection, scope: str, new_days: set[Member], deltas: Deltas) -> None:
    """An aggregate's first sightings (earliest day wins), moving per-day counts accordingly."""
    for member_kind, kind in _FIRST_KIND.items():
        earliest: dict[str, int] = {}
        for k, _, day, a in new_days:
            if k == member_kind:
                earliest[a] = min(day, earliest.get(a, day))
        if earliest:
            _first_seen_kind(conn, scope, kind, earliest, deltas)


def _first_seen_kind(
    conn: Connection, scope: str, kind: str, earliest: dict[str, int], deltas: Deltas
) -> None:
    f = metric_first_seen.c
    rows = [(scope, kind, a, d) for a, d in sorted(earliest.items())]
    inserted = {
        r[0]
        for r in insert_new(
            conn,
            metric_first_seen.name,
            ("scope", "kind", "address", "first_day"),
            rows,
            ("address",),
        )
    }
    for a in inserted:
        deltas[(scope, kind, _D, earliest[a])] += 1
    # Aggregates are fed by chains at different points in time: an earlier sighting can arrive
    # after a later one, and then moves the first day back.
    rest = sorted(set(earliest) - inserted)
    moves = []
    for part in _chunks(rest):
        q = (
            select(f.address, f.first_day)
            .where(f.scope == scope, f.kind == kind, f.address.in_(list(part)))
            .with_for_update()
        )
        for a, old in conn.execute(q):
            if earliest[a] < old:
                deltas[(scope, kind, _D, old)] -= 1
                deltas[(scope, kind, _D, earliest[a])] += 1
                moves.append({"k_address": a, "first_day": earliest[a]})
    if moves:
        conn.execute(
            update(metric_first_seen)
            .where(f.scope == scope, f.kind == kind, f.address == bindparam("k_address"))
            .values(first_day=bindparam("first_day")),
            moves,
        )
