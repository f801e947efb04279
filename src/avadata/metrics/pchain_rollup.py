"""P-chain blocks -> what they change in the staking and L1 fee rollups (pure), and the fee
replay's account arithmetic the rollup's writer steps with.

Stage: metrics (pure). `store/metrics/pchain_writer.py` writes these changes inside the P-chain
writer's transaction; `store/metrics/rebuild.py` feeds it the stored rows instead.

Why a day's value can be final while indexing (docs/metrics.md): every boundary a P-chain tx
declares (a period's start or end, a removal, an L1 balance change) is at or after the tx's own
time, and P-chain time never goes back; so once the P-chain's newest tx is past a day, nothing
indexed later changes that day's staking values or the fees paid in it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from avadata.metrics.buckets import DAY
from avadata.metrics.l1_fees import FEE_PER_SECOND, Event, daily_fees, events_of
from avadata.records.primary import Block, StakerOpened, StakerRemoved


class Period(NamedTuple):
    """A validation period as the staking rollup keys it (by its tx hash)."""

    tx_hash: str
    kind: str
    subnet_id: str
    start: int
    end: int
    weight: int


@dataclass(slots=True)
class PBlockChanges:
    """One P-chain block's contributions; `now` is its newest tx's time (None: no tx)."""

    height: int
    now: int | None
    l1: list[tuple[str, Event]] = field(default_factory=list)  # (validation ID, event), in order
    opened: list[Period] = field(default_factory=list)
    # Removal txs (their hash): the writer asks the store which periods each one ended.
    removals: list[str] = field(default_factory=list)


def changes(blocks: Iterable[Block]) -> list[PBlockChanges]:
    """What P-chain `blocks` (in height order) contribute: only their txs matter."""
    out: list[PBlockChanges] = []
    for b in blocks:
        ch = PBlockChanges(b.height, b.timestamp if b.txs else None)
        for tx in b.txs:
            for vid in dict.fromkeys(tx.l1_validations):
                ch.l1.append((vid, events_of(vid, b.timestamp, tx.tx_type, tx.body)))
            s = tx.staker
            if isinstance(s, StakerOpened):
                ch.opened.append(
                    Period(tx.tx_hash, s.kind, s.subnet_id, s.start_ts, s.end_ts, s.amount_staked)
                )
            elif isinstance(s, StakerRemoved):
                ch.removals.append(tx.tx_hash)
        out.append(ch)
    return out


@dataclass(slots=True)
class Account:
    """One L1 validation's replay state (metrics/l1_fees.replay, stepped): its balance after
    paying up to `since` (None before its first event)."""

    balance: int = 0
    since: int | None = None


# (validation ID, day) -> [nAVAX paid that day, balance at the day's last step]
DayRows = dict[tuple[str, int], list[int]]


def settle(vid: str, acc: Account, t: int, rows: DayRows, price: int = FEE_PER_SECOND) -> None:
    """Pay from `since` up to `t` (whole seconds, while the balance lasts), booking each day's
    fee; `since` becomes `t`. Settling at any intermediate time first pays the same in total
    (min(b // p, t - s) splits exactly), which is what lets the writer settle at day ends."""
    if acc.since is not None and acc.balance >= price and t > acc.since:
        paid = min(acc.balance // price, t - acc.since)
        for day, fee in daily_fees([(acc.since, acc.since + paid)], price).items():
            rows.setdefault((vid, day), [0, 0])[0] += fee
        acc.balance -= paid * price
    acc.since = t


def apply_event(vid: str, acc: Account, e: Event, rows: DayRows) -> None:
    """Settle to the event, then apply it (as l1_fees.replay does), booking the balance."""
    settle(vid, acc, e.timestamp, rows)
    acc.balance = 0 if e.zeroes else acc.balance + e.added
    day = e.timestamp - e.timestamp % DAY
    rows.setdefault((vid, day), [0, 0])[1] = acc.balance


def close_day(vid: str, acc: Account, boundary: int, rows: DayRows) -> None:
    """Settle a paying account at a day's end (`boundary`, the next day's start)."""
    settle(vid, acc, boundary, rows)
    rows.setdefault((vid, boundary - DAY), [0, 0])[1] = acc.balance


def paying(acc: Account, price: int = FEE_PER_SECOND) -> bool:
    return acc.since is not None and acc.balance >= price


def boundaries(after: int | None, upto: int) -> range:
    """Day starts in (after, upto]: the day ends the P-chain's time passed."""
    if after is None:
        return range(0)
    first = after - after % DAY + DAY
    return range(first, upto + 1, DAY)


def tail(acc: Account, now: int, price: int = FEE_PER_SECOND) -> tuple[int, int]:
    """(seconds paid from `since` to `now`, balance at `now`): the newest day's open part."""
    if not paying(acc, price) or acc.since is None or now <= acc.since:
        return 0, acc.balance
    paid = min(acc.balance // price, now - acc.since)
    return paid, acc.balance - paid * price
