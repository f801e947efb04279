"""Primary-network staking reward (avalanchego vms/platformvm/reward, pre-Helicon).

Integer arithmetic only: the Go code divides big ints one after another (÷(MP×1e6), ÷C, ÷MP),
which equals one floor of the whole fraction; floats would drift on 1e17-sized supplies.
"""

from __future__ import annotations

from dataclasses import dataclass

PERCENT_DENOMINATOR = 1_000_000


@dataclass(frozen=True, slots=True)
class RewardConfig:
    max_consumption_rate: int = 120_000
    min_consumption_rate: int = 100_000
    minting_period_seconds: int = 365 * 24 * 3600
    supply_cap: int = 720_000_000 * 10**9


MAINNET = RewardConfig()  # fuji and local networks use the same parameters


def potential_reward(
    duration_seconds: int, staked: int, current_supply: int, cfg: RewardConfig = MAINNET
) -> int:
    """Reward fixed when a staker is added (paid only if uptime suffices)."""
    if current_supply <= 0 or duration_seconds <= 0 or staked <= 0:
        return 0
    mp = cfg.minting_period_seconds
    remaining = max(cfg.supply_cap - current_supply, 0)
    rate_num = (
        cfg.max_consumption_rate - cfg.min_consumption_rate
    ) * duration_seconds + cfg.min_consumption_rate * mp
    reward = (remaining * rate_num * staked * duration_seconds) // (
        mp * PERCENT_DENOMINATOR * current_supply * mp
    )
    return min(reward, remaining)


def split_delegation(potential: int, shares: int) -> tuple[int, int]:
    """(delegator's part, validator's fee) of a delegator's reward; shares in parts per 1e6."""
    delegator = (PERCENT_DENOMINATOR - shares) * potential // PERCENT_DENOMINATOR
    return delegator, potential - delegator
