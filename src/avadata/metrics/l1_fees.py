"""The L1 validators' continuous fee (ACP-77), replayed from the P-chain txs of each
validation: when it paid, how much per day, its balance now and when it runs out.

Stage: metrics (pure). `store/metrics/l1_reads.py` reads the txs; the Metrics API's L1
validator series and the Prometheus gauges call this.

Facts (avalanchego vms/platformvm/validators/fee/fee.go and the Etna fee config): an active
L1 validator pays the price p every second, p = MinPrice * e^(excess / K); the excess grows only
while more than Target (10,000) L1 validators are active, so below that p is MinPrice, 512
nAVAX per second on mainnet and fuji (`FEE_PER_SECOND`). A validator with balance b pays
whole seconds: it stays active for floor(b / p) seconds (`SecondsRemaining`), and what is
left below p is refunded with the rest when it is disabled. This module assumes the excess is
0 (true of every network so far; a store whose active L1 validators pass 10,000 would need the
fee state replayed too).

Events of a validation, in P-chain order: its creation (ConvertSubnetToL1Tx or
RegisterL1ValidatorTx) and IncreaseL1ValidatorBalanceTx add balance (an increase re-activates
a validator that ran out); DisableL1ValidatorTx and a weight-0 SetL1ValidatorWeightTx (its
removal) refund the balance: it pays nothing more until an increase.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from avadata.metrics.buckets import DAY

FEE_PER_SECOND = 512

_ZEROING = ("DisableL1ValidatorTx",)


class Event(NamedTuple):
    timestamp: int
    added: int  # nAVAX added to the balance
    zeroes: bool  # the balance is refunded (disable or removal)


class Replay(NamedTuple):
    # Seconds [start, end) in which the validator paid.
    spans: list[tuple[int, int]]
    balance: int  # at `now`
    # When the balance runs out at the current price (None: not paying now).
    deactivates_at: int | None
    # Given a threshold: (second, balance then) of each time paying took the balance from at
    # or above it to below it (a top-up back above it arms the next; a refund is not one).
    crossings: tuple[tuple[int, int], ...] = ()


def events_of(validation_id: str, timestamp: int, tx_type: str, body: dict[str, Any]) -> Event:
    """What one P-chain tx does to the validation's balance (its `l1ValidatorDetails`)."""
    added, zeroes = 0, tx_type in _ZEROING
    for d in body.get("l1ValidatorDetails", ()):
        if d.get("validationId") != validation_id:
            continue
        added += int(d.get("balanceChange") or 0)
        if tx_type == "SetL1ValidatorWeightTx" and d.get("weight") == 0:
            zeroes = True
    return Event(timestamp, added, zeroes)


def replay(
    events: Iterable[Event], now: int, price: int = FEE_PER_SECOND, threshold: int | None = None
) -> Replay:
    """The validation's paying spans up to `now`, its balance at `now` and when it runs out;
    given a `threshold` (nAVAX), when its balance fell below it. `events` are in P-chain
    order, none after `now`."""
    spans: list[tuple[int, int]] = []
    crossed: list[tuple[int, int]] = []
    balance, since = 0, None

    def settle(t: int) -> None:
        nonlocal balance, since
        if since is not None and balance >= price:
            paid = min(balance // price, max(0, t - since))
            if paid:
                spans.append((since, since + paid))
                if threshold is not None and balance >= threshold:
                    # Whole seconds: after k of them the balance is balance - k * price.
                    k = (balance - threshold) // price + 1
                    if k <= paid:
                        crossed.append((since + k, balance - k * price))
                balance -= paid * price
        since = t

    for e in events:
        settle(e.timestamp)
        balance = 0 if e.zeroes else balance + e.added
    if since is None:
        return Replay([], 0, None)
    settle(now)
    runs_out = now + balance // price if balance >= price else None
    return Replay(spans, balance, runs_out, tuple(crossed))


def daily_fees(spans: Iterable[tuple[int, int]], price: int = FEE_PER_SECOND) -> dict[int, int]:
    """nAVAX paid per UTC day (day start -> amount) over the spans."""
    out: dict[int, int] = defaultdict(int)
    for a, b in spans:
        day = a - a % DAY
        while day < b:
            out[day] += price * (min(b, day + DAY) - max(a, day))
            day += DAY
    return dict(out)


def paying_days(spans: Iterable[tuple[int, int]]) -> set[int]:
    """The UTC days in which the validator paid for at least one second."""
    days: set[int] = set()
    for a, b in spans:
        days.update(range(a - a % DAY, b, DAY))
    return days


# The hosted metric names -> what each computes over the selected validations.
DAILY, CUMULATIVE, PAYING = "daily", "cumulative", "paying"
TOTAL_METRICS = {
    "totalCumulativeFeesDaily": CUMULATIVE,
    "totalValidatorFeesDaily": DAILY,
    "totalPayingValidatorsDaily": PAYING,
}
# Ours (no hosted metric says it): per validation, its balance left for the fee and the
# seconds it lasts at the current price, at each day's end (docs/compatibility.md, issue 22).
BALANCE, RUNWAY = "balance", "runway"
VALIDATION_METRICS = {
    "validationCumulativeFeesDaily": CUMULATIVE,
    "validationFeesDaily": DAILY,
    "validationRemainingBalance": BALANCE,
    "validationRunwaySeconds": RUNWAY,
}
NODE_METRICS = {"perNodeCumulativeFeesPaid": CUMULATIVE, "perNodeDailyFeesPaid": DAILY}
SUBNET_METRICS = {
    "perSubnetDailyFeesPaid": DAILY,
    "perSubnetCumulativeFeesPaid": CUMULATIVE,
    "perSubnetPayingValidators": PAYING,
}


def series(
    replays: Iterable[Replay], first_day: int, last_day: int, kind: str
) -> list[tuple[int, int]]:
    """(day, value) for every day in [first_day, last_day], newest first: nAVAX paid that day
    (DAILY), paid up to the day's end (CUMULATIVE), or validations that paid that day (PAYING)."""
    per_day: dict[int, int] = defaultdict(int)
    for r in replays:
        if kind == PAYING:
            for d in paying_days(r.spans):
                per_day[d] += 1
            continue
        for d, fee in daily_fees(r.spans).items():
            per_day[d] += fee
    return day_series(per_day, first_day, last_day, kind)


def day_series(
    per_day: Mapping[int, int], first_day: int, last_day: int, kind: str
) -> list[tuple[int, int]]:
    """`series` from each day's value (nAVAX paid, or validations paying), any days given."""
    days = range(first_day, last_day + 1, DAY)
    if kind != CUMULATIVE:
        return [(d, per_day.get(d, 0)) for d in reversed(days)]
    out, total = [], sum(v for d, v in per_day.items() if d < first_day)
    for d in days:
        total += per_day.get(d, 0)
        out.append((d, total))
    return out[::-1]


class Runway(NamedTuple):
    fee_per_second: int  # nAVAX per second it pays now (0: not paying)
    # When and at which P-chain height its balance runs out (None: not paying now).
    deactivation_timestamp: int | None
    deactivation_height: int | None


# A staker's end is rewarded by a proposal block and its commit or abort block.
REWARD_BLOCKS = 2


def runway(
    r: Replay,
    head_height: int,
    head_timestamp: int,
    block_interval: float | None,
    reward_ends: Sequence[int] = (),
    price: int = FEE_PER_SECOND,
) -> Runway:
    """The runway of a validation replayed to the P-chain head: the time its balance runs out
    (avalanchego's SecondsRemaining from the head), and the height of the first block at or
    after that time: the head, plus the standard blocks expected at the chain's mean block
    interval (None without one), plus the reward blocks of the primary stakers whose periods
    end before then (`reward_ends`: the end times of periods not rewarded yet, sorted; those blocks
    are scheduled). avalanchego's block builder issues a block when the next validator set
    change is due, an L1 validator running out included, so the deactivation is the first
    block at or after the predicted time."""
    if r.deactivates_at is None:
        return Runway(0, None, None)
    height = None
    if block_interval is not None and block_interval > 0:
        ahead = max(0, r.deactivates_at - head_timestamp)
        # the ends in (head, deactivation]: two bisections of the sorted ends
        rewards = bisect_right(reward_ends, r.deactivates_at) - bisect_right(
            reward_ends, head_timestamp
        )
        height = head_height + max(1, -int(-ahead // block_interval)) + REWARD_BLOCKS * rewards
    return Runway(price, r.deactivates_at, height)
