"""Apply rollup changes inside the store writer's transaction: the metrics applier.

Stage: metrics (writes only the metric_* tables). The indexer passes `apply_metrics` to
`store.writer.write_evm_batch(..., appliers=[apply_metrics])`; it runs after the batch's rows
and before the cursor moves, in the same transaction, so rows, rollups and cursor commit
together.

Invariants (why a replayed or re-indexed range changes nothing):
- additive sums move only for blocks whose `metric_blocks` row was new (INSERT .. ON CONFLICT
  DO NOTHING .. RETURNING says which), and max samples are idempotent;
- distinct counts move only by membership rows that were new, per (scope, kind, interval,
  bucket); an existing hour row implies its day/week/month rows and its network/total rows
  exist, so only new rows cascade to the coarser interval and to the wider scope;
- first sightings keep the earliest day; moving one moves one count between two days.
All counter updates are `count = count + n` in SQL, and sums are read FOR UPDATE first, so two
writers (two chains feeding `total` on PostgreSQL) serialise instead of losing updates.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Connection, and_, bindparam, select, tuple_, update

from avadata.metrics.buckets import ALL_INTERVALS, Interval, start
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
from avadata.store.schema import (
    chains,
    metric_blocks,
    metric_counts,
    metric_first_seen,
    metric_members,
    metric_sums,
)

TOTAL = "total"
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


def scopes_for(conn: Connection, chain_id: int) -> list[str]:
    """Membership scopes a chain feeds, narrowest first: itself, its network, total."""
    network = conn.execute(
        select(chains.c.network).where(chains.c.chain_id == chain_id)
    ).scalar_one_or_none()
    # A chain without a stored network is a test network (a devnet), as the chain listings say.
    return [str(chain_id), network_of(network), TOTAL]


def network_of(stored: str | None) -> str:
    """The metrics network of a chain: its stored network, else testnet."""
    return "mainnet" if stored == "mainnet" else "testnet"


def apply_changes(conn: Connection, ch: RollupChanges) -> None:
    scopes = scopes_for(conn, ch.chain_id)
    new_blocks = _insert_blocks(conn, ch.chain_id, ch.blocks)
    deltas = bucket_sums(new_blocks)
    _add_samples(conn, ch.chain_id, new_blocks, deltas)
    _write_sums(conn, ch.chain_id, deltas)
    every = set(ALL_INTERVALS)
    _members(conn, scopes, KIND_ACTIVE, Interval.HOUR, ch.active, every, FIRST_ADDRESS)
    _members(conn, scopes, KIND_SENDER, Interval.HOUR, ch.senders, every, None)
    _members(
        conn, scopes, KIND_DEPLOYER, Interval.DAY, ch.deployers, {Interval.DAY}, FIRST_DEPLOYER
    )


def _chunks(items: Sequence[Any], n: int = _CHUNK) -> Iterable[Sequence[Any]]:
    for i in range(0, len(items), n):
        yield items[i : i + n]


def _insert_blocks(conn: Connection, chain_id: int, blocks: list[BlockStats]) -> list[BlockStats]:
    """Insert the blocks' rows; return the blocks that were not stored before."""
    if not blocks:
        return []
    rows = [
        {
            "chain_id": chain_id,
            "number": b.number,
            "timestamp": b.timestamp,
            "tx_count": b.tx_count,
            "gas_used": b.gas_used,
        }
        for b in blocks
    ]
    stmt = dialect.insert_or_ignore(conn, metric_blocks).returning(metric_blocks.c.number)
    new: set[int] = set()
    for part in _chunks(rows):
        new.update(r[0] for r in conn.execute(stmt, list(part)))
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


def _members(
    conn: Connection,
    scopes: list[str],
    kind: str,
    base: Interval,
    keys: set[tuple[int, str]],
    intervals: set[Interval],
    first_kind: str | None,
) -> None:
    """Insert membership at `base` (hour or day), cascading only new rows outward."""
    pending = keys
    for scope in scopes:
        if not pending:
            return
        new_base = _insert_members(conn, scope, kind, base, pending)
        new_day = new_base
        if base is Interval.HOUR:
            day_keys = {(start(b, Interval.DAY), a) for b, a in new_base}
            new_day = _insert_members(conn, scope, kind, Interval.DAY, day_keys)
        for coarse in (Interval.WEEK, Interval.MONTH):
            if coarse in intervals:
                coarse_keys = {(start(d, coarse), a) for d, a in new_day}
                _insert_members(conn, scope, kind, coarse, coarse_keys)
        if first_kind is not None:
            _first_seen(conn, scope, first_kind, new_day)
        pending = new_base


def _insert_members(
    conn: Connection, scope: str, kind: str, interval: Interval, keys: set[tuple[int, str]]
) -> set[tuple[int, str]]:
    """Insert-or-ignore membership rows; count and return the ones that were new."""
    if not keys:
        return set()
    m = metric_members.c
    stmt = dialect.insert_or_ignore(conn, metric_members).returning(m.bucket, m.address)
    rows = [
        {"scope": scope, "kind": kind, "interval": interval.code, "bucket": b, "address": a}
        for b, a in sorted(keys)
    ]
    new: set[tuple[int, str]] = set()
    for part in _chunks(rows):
        new.update((r[0], r[1]) for r in conn.execute(stmt, list(part)))
    _bump(conn, scope, kind, interval, Counter(b for b, _ in new))
    return new


def _bump(
    conn: Connection, scope: str, kind: str, interval: Interval, deltas: Counter[int]
) -> None:
    """count += delta per bucket, atomically in SQL (safe with concurrent writers)."""
    rows = [
        {"scope": scope, "kind": kind, "interval": interval.code, "bucket": b, "count": n}
        for b, n in sorted(deltas.items())
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


def _first_seen(conn: Connection, scope: str, kind: str, new_day: set[tuple[int, str]]) -> None:
    """Record first sightings (earliest day wins) and move the per-day counts accordingly."""
    if not new_day:
        return
    earliest: dict[str, int] = {}
    for day, a in new_day:
        earliest[a] = min(day, earliest.get(a, day))
    f = metric_first_seen.c
    stmt = dialect.insert_or_ignore(conn, metric_first_seen).returning(f.address)
    rows = [
        {"scope": scope, "kind": kind, "address": a, "first_day": d}
        for a, d in sorted(earliest.items())
    ]
    inserted: set[str] = set()
    for part in _chunks(rows):
        inserted.update(r[0] for r in conn.execute(stmt, list(part)))
    deltas: Counter[int] = Counter(earliest[a] for a in inserted)
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
                deltas[old] -= 1
                deltas[earliest[a]] += 1
                moves.append({"k_address": a, "first_day": earliest[a]})
    if moves:
        conn.execute(
            update(metric_first_seen)
            .where(f.scope == scope, f.kind == kind, f.address == bindparam("k_address"))
            .values(first_day=bindparam("first_day")),
            moves,
        )
    _bump(conn, scope, kind, Interval.DAY, deltas)
