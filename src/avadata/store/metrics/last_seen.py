"""Distinct counts of a single chain from one row per address: its last active bucket.

Stage: store (the metrics rollup's writing half: reads and writes metric_last_seen, reports
count deltas).

Why it is exact: the store writer takes a chain's blocks only in order (it refuses gaps), and
block timestamps never decrease, so an address's activity reaches us in time order. An hour h
is then new for the address iff h > its last active hour; its day, week or month is new iff
that bucket starts after the bucket of the last active hour; no row at all is a first
sighting. A replayed range only holds hours <= the last one, so it counts nothing. One row
read and one row written per (kind, address) and batch, instead of a membership row per
interval. Aggregates of several chains see activity out of time order and keep membership
rows instead (membership.py).

The writer's `batch_cache.Carried` keeps each address's last bucket after a batch for the next one
(in a backfill nearly every address a batch sees, the batch before saw): the store is asked
only for the others.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from avadata.metrics.buckets import DAY, Interval, month_of_day, start, week_of_day
from avadata.metrics.rollup import Buckets
from avadata.store.batch_cache import Carried
from avadata.store.metrics.driver_sql import select_in, upsert_max
from avadata.store.schema import metric_last_seen

Member = tuple[str, str, int, str]  # (kind, interval code, bucket, address)


@dataclass(slots=True)
class LastSeen:
    """The last-seen rows of one chain scope, within one batch's write: counts go to `deltas`,
    new base rows are returned when `members` (the aggregates' cascade needs them)."""

    conn: Connection
    chain_id: int
    scope: str
    deltas: Any
    members: bool
    carried: Carried | None = None

    def _stored(self, kind: str, addresses: list[str]) -> dict[str, int | None]:
        """Each address's stored last bucket (None: no row), from what the earlier batches
        left where that is held. The dict is the held one: `novelty` moves it on."""

        def load(missing: list[str]) -> dict[str, int | None]:
            found = select_in(
                self.conn,
                metric_last_seen.name,
                ("address", "last_bucket"),
                {"scope": self.scope, "kind": kind},
                "address",
                sorted(missing),
            )
            return {a: int(last) for a, last in found}

        if self.carried is None:
            return load(addresses)
        return self.carried.prior(self.chain_id, self._name(kind), addresses, load, absent=None)

    def _name(self, kind: str) -> str:
        return f"{metric_last_seen.name}:{self.scope}:{kind}"

    def novelty(
        self,
        kind: str,
        base: Interval,
        buckets: Buckets,
        first_kind: str | None,
    ) -> set[Member]:
        """Count what is new in `buckets` (each address's buckets of `base`, ascending).

        Adds +1 to `deltas[(scope, kind, interval code, bucket)]` for every new bucket of every
        interval (hour -> day, week, month; a day base counts days only), and to
        `deltas[(scope, first_kind, "d", day)]` for first sightings. Returns the new base rows
        when `members` (the aggregates' cascade needs them), else an empty set.
        """
        if not buckets:
            return set()
        scope, deltas, members = self.scope, self.deltas, self.members
        stored = self._stored(kind, list(buckets))
        hourly = base is Interval.HOUR
        base_code = base.code
        new: set[Member] = set()
        rows: list[tuple[str, str, str, int]] = []
        # New buckets counted per interval under plain int keys, folded into `deltas` at the
        # end: ~250k events per 2,050-block backfill, and the 4-tuple keys of `deltas` cost
        # more to build and hash than the counting itself.
        bases: dict[int, int] = {}
        days: dict[int, int] = {}
        weeks: dict[int, int] = {}
        months: dict[int, int] = {}
        firsts: dict[int, int] = {}
        for a, seen in buckets.items():
            before = last = stored.get(a)
            if last is None and first_kind is not None:
                day = start(seen[0], Interval.DAY)
                firsts[day] = firsts.get(day, 0) + 1
            for b in seen:
                if last is not None and b <= last:
                    continue
                if members:
                    new.add((kind, base_code, b, a))
                bases[b] = bases.get(b, 0) + 1
                if hourly:
                    # A bucket is new iff it starts after the last active hour. A day that is
                    # not new means its week and month are not new either.
                    day = b - b % DAY
                    if last is None or day > last:
                        days[day] = days.get(day, 0) + 1
                        week, month = week_of_day(day), month_of_day(day)
                        if last is None or week > last:
                            weeks[week] = weeks.get(week, 0) + 1
                        if last is None or month > last:
                            months[month] = months.get(month, 0) + 1
                last = b
            if last is not None and last != before:
                rows.append((scope, kind, a, last))
                stored[a] = last
        for code, counts in ((base_code, bases), ("d", days), ("w", weeks), ("m", months)):
            for bucket, n in counts.items():
                deltas[(scope, kind, code, bucket)] += n
        for day, n in firsts.items():
            deltas[(scope, first_kind, Interval.DAY.code, day)] += n
        if self.carried is None:
            _write(self.conn, rows)
        else:
            # Held back to the commit (batch_cache.Carried.defer): in a backfill most addresses
            # move on in every batch, and one row each per transaction is enough.
            conn, name = self.conn, self._name(kind)
            self.carried.defer(
                self.chain_id,
                name,
                (r[2] for r in rows),
                lambda items: _write(conn, [(scope, kind, a, last) for a, last in items]),
            )
            self.carried.done(self.chain_id, name)
        return new


def _write(conn: Connection, rows: list[tuple[str, str, str, int]]) -> None:
    """Each (scope, kind, address)'s last bucket, where it is later than the stored one."""
    upsert_max(conn, metric_last_seen.name, ("scope", "kind", "address"), "last_bucket", rows)
