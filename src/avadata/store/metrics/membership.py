"""Distinct counts written by the rollup: a chain's own scope from its last-seen rows, then
the aggregate scopes' membership, first sightings and count rows.

Stage: store (the metrics rollup's writing half, inside the writer's transaction; called by
`rollup_writer.apply_changes`, and by `scope_rows.scopes_for` through `materialize`).

Invariants (why a replayed or re-indexed range changes nothing):
- a chain's distinct counts move only for buckets after each address's last active hour
  (last_seen.py: a chain's blocks arrive in order), so a replay counts nothing;
- an aggregate of several chains counts only membership rows that were new, per (scope, kind,
  interval, bucket); an existing hour row implies its day/week/month rows and its wider scope's
  rows, so only new rows cascade to the coarser interval and to the wider scope;
- an aggregate's first sightings keep the earliest day; moving one moves one count.
All counter updates are `count = count + n` in SQL, and first days are read FOR UPDATE first,
so two writers (two chains feeding `total` on PostgreSQL) serialise instead of losing updates.
"""

from __future__ import annotations

from collections import Counter

from sqlalchemy import Connection, bindparam, select, update

from avadata.metrics.buckets import ALL_INTERVALS, Interval, start
from avadata.metrics.rollup import (
    FIRST_ADDRESS,
    FIRST_DEPLOYER,
    KIND_ACTIVE,
    KIND_DEPLOYER,
    KIND_SENDER,
    Buckets,
    RollupChanges,
)
from avadata.store import dialect
from avadata.store.batch_cache import Carried
from avadata.store.metrics.driver_sql import chunks, insert_new
from avadata.store.metrics.last_seen import LastSeen, Member
from avadata.store.metrics.rollup_inputs import stored_changes
from avadata.store.schema import metric_counts, metric_first_seen, metric_members

Deltas = Counter[tuple[str, str, str, int]]  # (scope, kind, interval code, bucket) -> +n
_FIRST_KIND = {KIND_ACTIVE: FIRST_ADDRESS, KIND_DEPLOYER: FIRST_DEPLOYER}
_H, _D, _W, _M = (i.code for i in ALL_INTERVALS)


def distinct(
    conn: Connection, scopes: list[str], ch: RollupChanges, carried: Carried | None
) -> None:
    """Distinct counts: the chain's own scope from its last-seen rows (last_seen.py), then the
    rows new there cascade into the aggregates' membership. One counter upsert in all."""
    deltas: Deltas = Counter()
    chain_scope, aggregates = scopes[0], scopes[1:]
    seen = LastSeen(conn, ch.chain_id, chain_scope, deltas, bool(aggregates), carried)
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
    """Build an aggregate scope's membership from its chains' stored rows (scope_rows.py calls
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
    rows = [(*key, n) for key, n in sorted(deltas.items()) if n != 0]
    dialect.add_up(conn, metric_counts, _COUNT_KEYS, (*_COUNT_KEYS, "count"), rows, ("count",))


_COUNT_KEYS = ("scope", "kind", "interval", "bucket")


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
    for part in chunks(rest):
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
