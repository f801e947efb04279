"""Write the P-chain's metric rollups inside the P-chain writer's transaction: the staking
series' closed days and the L1 validators' fee replay (metrics/pchain_rollup.py).

Stage: store (writes only the metric_p_clock, metric_staking_*, metric_l1_* tables). The
primary indexer passes `apply_pchain` to `store.primary.writer.write_blocks`; it runs after the
batch's rows (periods opened and removed are in the table by then) and before the cursor
moves, so rows, rollups and cursor commit together.

Invariants:
- only blocks above the clock's height count (a replayed batch changes nothing);
- a day is closed (its staking values written, every paying L1 account settled at its end)
  once the P-chain's newest tx is past it, and never again;
- what is not closed yet is kept exactly (pending marks, accounts' balance and `since`), so
  the newest day is read at request time as the per-request computation would replay it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from sqlalchemy import Connection, delete, select, update

from avadata.metrics import pchain_rollup as pr
from avadata.metrics.buckets import DAY
from avadata.metrics.l1_fees import Event
from avadata.records.primary import Block
from avadata.store import dialect
from avadata.store.schema import (
    metric_l1_accounts,
    metric_l1_fee_days,
    metric_p_clock,
    metric_staking_days,
    metric_staking_marks,
    primary_l1_validators,
    primary_validations,
)

_P = "P"


class Clock(NamedTuple):
    height: int
    now: int
    closed_day: int | None


def clock(conn: Connection) -> Clock | None:
    c = metric_p_clock.c
    row = conn.execute(select(c.height, c.now, c.closed_day).where(c.chain == _P)).first()
    if row is None:
        return None
    return Clock(int(row[0]), int(row[1]), None if row[2] is None else int(row[2]))


def apply_pchain(conn: Connection, blockchain_id: str, blocks: Sequence[Block]) -> None:
    """The primary writer's applier: roll the P-chain's `blocks` up (other chains: nothing)."""
    if blockchain_id == _P and blocks:
        apply_changes(conn, pr.changes(blocks))


def apply_changes(conn: Connection, changes: Sequence[pr.PBlockChanges]) -> None:
    before = clock(conn)
    new = [c for c in changes if before is None or c.height > before.height]
    times = [c.now for c in new if c.now is not None]
    if not times:
        return
    prev_now = None if before is None else before.now
    now = max([*times, *([] if prev_now is None else [prev_now])])
    _add_marks(conn, [p for c in new for p in c.opened])
    _move_removed(conn, [r for c in new for r in c.removals])
    _replay_l1(conn, [ev for c in new for ev in c.l1], prev_now, now)
    closed = _close_staking(conn, None if before is None else before.closed_day, now)
    stmt = dialect.upsert(
        conn,
        metric_p_clock,
        keys=("chain",),
        set_=lambda ex: {"height": ex.height, "now": ex.now, "closed_day": ex.closed_day},
    )
    # The newest block with a tx: what a rebuild from the stored txs finds too.
    height = max(c.height for c in new if c.now is not None)
    conn.execute(stmt, {"chain": _P, "height": height, "now": now, "closed_day": closed})


def _add_marks(conn: Connection, periods: Sequence[pr.Period]) -> None:
    rows = [
        {"tx_hash": p.tx_hash, "edge": edge, "subnet_id": p.subnet_id, "kind": p.kind}
        | {"at": at, "weight": p.weight}
        for p in periods
        for edge, at in (("s", p.start), ("e", p.end))
    ]
    if rows:
        conn.execute(dialect.insert_or_ignore(conn, metric_staking_marks), rows)


def _move_removed(conn: Connection, removals: Sequence[str]) -> None:
    """A period removed before its end ends at the removal (the writer has set it by now)."""
    if not removals:
        return
    v, m = primary_validations.c, metric_staking_marks.c
    ended = conn.execute(
        select(v.tx_hash, v.remove_timestamp).where(
            v.remove_tx_hash.in_(list(removals)), v.remove_timestamp < v.end_ts
        )
    ).all()
    for tx_hash, at in ended:
        conn.execute(
            update(metric_staking_marks)
            .where(m.tx_hash == tx_hash, m.edge == "e")
            .values(at=int(at))
        )


def _close_staking(conn: Connection, closed: int | None, now: int) -> int | None:
    """Write the staking values of the days from `closed` to the one before `now`'s, fold
    their marks away; returns the last closed day."""
    through = now - now % DAY - DAY
    if closed is not None and through <= closed:
        return closed
    m, d = metric_staking_marks.c, metric_staking_days.c
    deltas: dict[tuple[str, str], dict[int, list[int]]] = {}
    for subnet, kind, at, edge, weight in conn.execute(
        select(m.subnet_id, m.kind, m.at, m.edge, m.weight).where(m.at < through + DAY)
    ):
        sign = 1 if edge == "s" else -1
        cw = deltas.setdefault((subnet, kind), {}).setdefault(at - at % DAY, [0, 0])
        cw[0] += sign
        cw[1] += sign * int(weight)
    last: dict[tuple[str, str], tuple[int, int]] = {}
    if closed is not None:
        q = select(d.subnet_id, d.kind, d.count, d.weight).where(d.day == closed)
        last = {(s, k): (int(c), int(w)) for s, k, c, w in conn.execute(q)}
    rows = []
    for group in sorted(set(deltas) | set(last)):
        days = deltas.get(group, {})
        count, weight = last.get(group, (0, 0))
        first = closed + DAY if group in last and closed is not None else min(days)
        for day in range(first, through + DAY, DAY):
            c, w = days.get(day, (0, 0))
            count, weight = count + c, weight + w
            rows.append(
                {"subnet_id": group[0], "kind": group[1], "day": day}
                | {"count": count, "weight": weight}
            )
    if rows:
        conn.execute(dialect.insert_or_ignore(conn, metric_staking_days), rows)
    conn.execute(delete(metric_staking_marks).where(m.at < through + DAY))
    return through


def _replay_l1(
    conn: Connection, events: Sequence[tuple[str, Event]], prev: int | None, now: int
) -> None:
    """Step every L1 account through the events and the day ends up to `now`."""
    if not events and not pr.boundaries(prev, now):
        return
    accounts, firsts = _accounts(conn)
    for vid, first in events:
        if vid not in accounts:
            accounts[vid], firsts[vid] = pr.Account(), first.timestamp
    rows: pr.DayRows = {}
    t = prev
    # The events, then `now` (None): the day ends before each are closed first.
    steps: list[tuple[str, Event | None]] = [*events, ("", None)]
    for vid, step in steps:
        upto = now if step is None else step.timestamp
        for boundary in pr.boundaries(t, upto):
            for other, acc in accounts.items():
                if pr.paying(acc):
                    pr.close_day(other, acc, boundary, rows)
        t = upto if t is None else max(t, upto)
        if step is not None:
            pr.apply_event(vid, accounts[vid], step, rows)
    _write_accounts(conn, accounts, firsts)
    if rows:
        f = metric_l1_fee_days.c
        stmt = dialect.upsert(
            conn,
            metric_l1_fee_days,
            keys=("validation_id", "day"),
            set_=lambda ex: {"fee": f.fee + ex.fee, "balance": ex.balance},
        )
        conn.execute(
            stmt,
            [
                {"validation_id": vid, "day": day, "fee": fee, "balance": balance}
                for (vid, day), (fee, balance) in rows.items()
            ],
        )


def _accounts(conn: Connection) -> tuple[dict[str, pr.Account], dict[str, int]]:
    a = metric_l1_accounts.c
    accounts, firsts = {}, {}
    for vid, first, balance, since in conn.execute(
        select(a.validation_id, a.first_ts, a.balance, a.since)
    ):
        accounts[str(vid)] = pr.Account(int(balance), None if since is None else int(since))
        firsts[str(vid)] = int(first)
    return accounts, firsts


def _write_accounts(
    conn: Connection, accounts: dict[str, pr.Account], firsts: dict[str, int]
) -> None:
    if not accounts:
        return
    v = primary_l1_validators.c
    who = {
        str(i): (str(s), str(n))
        for i, s, n in conn.execute(
            select(v.validation_id, v.subnet_id, v.node_id).where(
                v.validation_id.in_(list(accounts))
            )
        )
    }
    stmt = dialect.upsert(
        conn,
        metric_l1_accounts,
        keys=("validation_id",),
        set_=lambda ex: {c: ex[c] for c in ("balance", "since", "subnet_id", "node_id")},
    )
    conn.execute(
        stmt,
        [
            {"validation_id": vid, "first_ts": firsts[vid], "balance": acc.balance}
            | {"since": acc.since, "subnet_id": who.get(vid, (None, None))[0]}
            | {"node_id": who.get(vid, (None, None))[1]}
            for vid, acc in accounts.items()
        ],
    )
