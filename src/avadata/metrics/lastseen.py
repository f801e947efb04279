"""Distinct counts of a single chain from one row per address: its last active bucket.

Stage: metrics (reads and writes metric_last_seen, reports count deltas).

Why it is exact: the store writer takes a chain's blocks only in order (it refuses gaps), and
block timestamps never decrease, so an address's activity reaches us in time order. An hour h
is then new for the address iff h > its last active hour; its day, week or month is new iff
that bucket starts after the bucket of the last active hour; no row at all is a first
sighting. A replayed range only holds hours <= the last one, so it counts nothing. One row
read and one row written per (kind, address) and batch, instead of a membership row per
interval. Aggregates of several chains see activity out of time order and keep membership
rows instead (applier.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection

from avadata.metrics.buckets import DAY, Interval, month_of_day, start, week_of_day
from avadata.metrics.sqlfast import select_in, upsert_max
from avadata.store.schema import metric_last_seen

Member = tuple[str, str, int, str]  # (kind, interval code, bucket, address)


def novelty(
    conn: Connection,
    scope: str,
    kind: str,
    base: Interval,
    events: Iterable[tuple[int, str]],
    first_kind: str | None,
    deltas: Any,
) -> set[Member]:
    """Count what is new in `events` ((bucket of `base`, address)) for a chain scope.

    Adds +1 to `deltas[(scope, kind, interval code, bucket)]` for every new bucket of every
    interval (hour -> day, week, month; a day base counts days only), and to
    `deltas[(scope, first_kind, "d", day)]` for first sightings. Returns the new base rows.
    """
    by_address: dict[str, list[int]] = {}
    for b, a in events:
        by_address.setdefault(a, []).append(b)
    if not by_address:
        return set()
    table = metric_last_seen.name
    stored = {
        a: int(last)
        for a, last in select_in(
            conn,
            table,
            ("address", "last_bucket"),
            {"scope": scope, "kind": kind},
            "address",
            sorted(by_address),
        )
    }
    hourly = base is Interval.HOUR
    base_code = base.code
    new: set[Member] = set()
    rows: list[tuple[str, str, str, int]] = []
    for a, seen in by_address.items():
        last = stored.get(a)
        if last is None and first_kind is not None:
            deltas[(scope, first_kind, Interval.DAY.code, start(min(seen), Interval.DAY))] += 1
        for b in sorted(set(seen)):
            if last is not None and b <= last:
                continue
            new.add((kind, base_code, b, a))
            deltas[(scope, kind, base_code, b)] += 1
            if hourly:
                # A bucket is new iff it starts after the last active hour. A day that is not
                # new means its week and month are not new either.
                day = b - b % DAY
                if last is None or day > last:
                    deltas[(scope, kind, "d", day)] += 1
                    week, month = week_of_day(day), month_of_day(day)
                    if last is None or week > last:
                        deltas[(scope, kind, "w", week)] += 1
                    if last is None or month > last:
                        deltas[(scope, kind, "m", month)] += 1
            last = b
        if last is not None and last != stored.get(a):
            rows.append((scope, kind, a, last))
    upsert_max(conn, table, ("scope", "kind", "address"), "last_bucket", rows)
    return new
