"""The P-chain's current supply, replayed from its staking history, and each primary staker's
potential reward (the reward formula's input is that supply: decode/primary/reward.py).

avalanchego moves the supply twice per primary-network staker: + its potential reward when
the staker becomes current, − that reward when a RewardValidatorTx does not pay it (an abort).
No block carries the supply, and the genesis one (plus the genesis validators' rewards) is
not in any index, so the replay starts from an unknown supply C0. The node tells one point of
the curve (platform.getCurrentSupply: the supply at a height); the supply after the events up
to that height never decreases as C0 grows (each step adds a reward that shrinks far slower
than C0 grows), so a bisection finds C0, and with it every potential reward.

Pure functions over plain data: the store loads the staking history, these compute
(indexer/primary/supply.py wires the two). Approximations (docs/primary.md): a pre-Durango
staker counts from its start time, ordered among same-second events by the block that added it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from avadata.decode.primary.reward import MAINNET, RewardConfig, potential_reward
from avadata.records.primary import RewardForfeited, StakerAdded


@dataclass(frozen=True, slots=True)
class SupplyEvent:
    """One supply move, in chain order. `height` is the P block that made it."""

    kind: Literal["add", "forfeit"]
    tx_hash: str  # the staking tx (a forfeit names the staker it ends)
    height: int
    duration: int = 0  # add: end - start, seconds
    staked: int = 0  # add: nAVAX


def replay(
    events: Sequence[SupplyEvent],
    start_supply: int,
    until: int | None = None,
    cfg: RewardConfig = MAINNET,
) -> tuple[dict[str, int], int]:
    """Potential reward of every staker added (by events up to height `until`, or all), and
    the supply after them."""
    supply = start_supply
    rewards: dict[str, int] = {}
    for e in events:
        if until is not None and e.height > until:
            break
        if e.kind == "add":
            reward = potential_reward(e.duration, e.staked, supply, cfg)
            rewards[e.tx_hash] = reward
            supply += reward
        else:
            # The forfeit of a staker added before the history starts (a genesis validator)
            # has no known reward: the start supply then found is off by it (docs/primary.md).
            supply -= rewards.get(e.tx_hash, 0)
    return rewards, supply


def solve_start_supply(
    events: Sequence[SupplyEvent], supply: int, height: int, cfg: RewardConfig = MAINNET
) -> int | None:
    """The supply before the first event such that the replay reaches `supply` at `height`
    (events sorted by height): the least one, as several can reach it; None when none
    does (an anchor below anything the history reaches)."""
    lo, hi = 0, supply
    while lo < hi:
        mid = (lo + hi) // 2
        if replay(events, mid, height, cfg)[1] < supply:
            lo = mid + 1
        else:
            hi = mid
    return lo if replay(events, lo, height, cfg)[1] == supply else None


def supply_events(
    adds: Sequence[StakerAdded], forfeits: Sequence[RewardForfeited]
) -> list[SupplyEvent]:
    """Every primary staker's add and every aborted reward, in chain order."""
    keyed: list[tuple[tuple[int, int, int], SupplyEvent]] = []
    for a in adds:
        # A staker counts from its start: its block's time since Durango, later before.
        at = max(a.start_ts, a.block_timestamp)
        event = SupplyEvent("add", a.tx_hash, a.height, a.end_ts - a.start_ts, a.amount_staked)
        keyed.append(((at, a.height, a.tx_index), event))
    for f in forfeits:
        event = SupplyEvent("forfeit", f.staker_tx_hash, f.height)
        keyed.append(((f.block_timestamp, f.height, f.tx_index), event))
    keyed.sort(key=lambda k: k[0])
    return [e for _, e in keyed]
