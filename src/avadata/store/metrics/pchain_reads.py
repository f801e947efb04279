"""Reads behind the staking and L1 fee series: the P-chain rollup's tables
(store/metrics/pchain_writer.py), a few rows per request.

Stage: store (reads only).
"""

from __future__ import annotations

from sqlalchemy import Connection, case, func, select

from avadata.metrics.buckets import DAY
from avadata.metrics.pchain_rollup import Account
from avadata.store.metrics.pchain_writer import Clock, clock
from avadata.store.schema import (
    metric_l1_accounts,
    metric_l1_fee_days,
    metric_staking_days,
    metric_staking_marks,
)

__all__ = ["Clock", "clock"]

_D, _M = metric_staking_days.c, metric_staking_marks.c
_A, _F = metric_l1_accounts.c, metric_l1_fee_days.c


def staking_first_day(conn: Connection, subnet_id: str, kind: str) -> int | None:
    """The day of the group's first period's start (closed rows, else its pending starts)."""
    first = conn.execute(
        select(func.min(_D.day)).where(_D.subnet_id == subnet_id, _D.kind == kind)
    ).scalar()
    if first is None:
        first = conn.execute(
            select(func.min(_M.at)).where(
                _M.subnet_id == subnet_id, _M.kind == kind, _M.edge == "s"
            )
        ).scalar()
    return None if first is None else int(first) - int(first) % DAY


def staking_days(
    conn: Connection, subnet_id: str, kind: str, lo: int, hi: int
) -> dict[int, tuple[int, int]]:
    """(count, weight) of each closed day in [lo, hi]."""
    q = select(_D.day, _D.count, _D.weight).where(
        _D.subnet_id == subnet_id, _D.kind == kind, _D.day.between(lo, hi)
    )
    return {int(d): (int(c), int(w)) for d, c, w in conn.execute(q)}


def staking_pending(
    conn: Connection, subnet_id: str, kind: str, lo: int, hi: int
) -> tuple[int, int]:
    """(count, weight) change of the group's pending marks at times in [lo, hi]."""
    q = select(_M.edge, _M.weight).where(
        _M.subnet_id == subnet_id, _M.kind == kind, _M.at.between(lo, hi)
    )
    count = weight = 0
    for edge, w in conn.execute(q):
        sign = 1 if edge == "s" else -1
        count, weight = count + sign, weight + sign * int(w)
    return count, weight


L1Account = tuple[str, str, str, int, Account]  # (validation, subnet, node, first_ts, state)


def l1_accounts(conn: Connection) -> list[L1Account]:
    """Every L1 validation the rollup replays (those whose validator row is known)."""
    q = (
        select(_A.validation_id, _A.subnet_id, _A.node_id, _A.first_ts, _A.balance, _A.since)
        .where(_A.subnet_id.is_not(None))
        .order_by(_A.validation_id)
    )
    return [
        (str(v), str(s), str(n), int(f), Account(int(b), None if t is None else int(t)))
        for v, s, n, f, b, t in conn.execute(q)
    ]


def ends_after(conn: Connection, kinds: tuple[str, ...], after: int) -> list[int]:
    """End times after `after` of the periods of these kinds still open in the rollup (its
    pending end marks; a removal has moved its period's end to the removal): the ends a
    P-chain at time `after` has yet to reward. Reads only the marks ahead of `after`."""
    q = select(_M.at).where(_M.at > after, _M.edge == "e", _M.kind.in_(kinds))
    return sorted(int(at) for at in conn.execute(q).scalars())


def l1_days(conn: Connection, ids: list[str] | None) -> dict[int, tuple[int, int]]:
    """Per day: (nAVAX the validations paid, how many paid) over `ids` (None: all known)."""
    paid = func.count(case((_F.fee > 0, 1)))
    q = select(_F.day, func.sum(_F.fee), paid).group_by(_F.day)
    if ids is None:
        q = q.join(metric_l1_accounts, _A.validation_id == _F.validation_id).where(
            _A.subnet_id.is_not(None)
        )
    else:
        q = q.where(_F.validation_id.in_(ids))
    return {int(d): (int(f), int(n)) for d, f, n in conn.execute(q)}


def l1_rows(
    conn: Connection, ids: list[str], lo: int, hi: int
) -> dict[tuple[str, int], tuple[int, int]]:
    """(fee, balance at the day's end) of each (validation, day) row with a day in [lo, hi]."""
    q = select(_F.validation_id, _F.day, _F.fee, _F.balance).where(
        _F.validation_id.in_(ids), _F.day.between(lo, hi)
    )
    return {(str(v), int(d)): (int(f), int(b)) for v, d, f, b in conn.execute(q)}
