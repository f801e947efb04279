"""Primary-network staking reward (avalanchego vms/platformvm/reward, pre-Helicon), and what
a rewarded staker was paid, read off the reward UTXOs the node keeps.

Integer arithmetic only: the Go code divides big ints one after another (÷(MP×1e6), ÷C, ÷MP),
which equals one floor of the whole fraction; floats would drift on 1e17-sized supplies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from avadata.decode.codec.components import UTXO
from avadata.decode.primary.utxos import utxo_record
from avadata.records.primary import Reward, Utxo

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


# avalanchego's staking config of mainnet and Fuji: a validator's weight (own stake plus its
# delegators') stays under min(MaxValidatorStake, MaxValidatorWeightFactor x own stake).
MAX_VALIDATOR_STAKE = 3_000_000 * 10**9
MAX_VALIDATOR_WEIGHT_FACTOR = 5


def delegation_capacity(staked: int, delegated: int) -> int:
    """nAVAX more that delegators may stake on a validator of `staked` holding `delegated`."""
    ceiling = min(MAX_VALIDATOR_STAKE, MAX_VALIDATOR_WEIGHT_FACTOR * staked)
    return max(0, ceiling - staked - delegated)


def split_delegation(potential: int, shares: int) -> tuple[int, int]:
    """(delegator's part, validator's fee) of a delegator's reward; shares in parts per 1e6."""
    delegator = (PERCENT_DENOMINATOR - shares) * potential // PERCENT_DENOMINATOR
    return delegator, potential - delegator


def paid_reward(
    staker_tx_hash: str,
    kind: str,
    committed: bool,
    utxos: Sequence[UTXO],
    reward_addresses: Sequence[str],
) -> tuple[Reward, list[Utxo]]:
    """The reward a staker of `kind` got, split as the Data API shows it, from its reward UTXOs
    (platform.getRewardUTXOs): a committed validator's first one is its own reward, the rest
    (and all of an aborted one's) its delegators' fees; a delegator's are all its own."""
    ordered = sorted(utxos, key=lambda u: u.output_index)
    amounts = [int(getattr(u.output, "amount", 0)) for u in ordered]
    if kind == "validator" and committed and ordered:
        types = ["VALIDATOR"] + ["VALIDATOR_FEE"] * (len(ordered) - 1)
        validation, delegation = amounts[0], sum(amounts[1:])
    elif kind == "validator":
        types = ["VALIDATOR_FEE"] * len(ordered)
        validation, delegation = 0, sum(amounts)
    else:
        types = ["DELEGATOR"] * len(ordered)
        validation, delegation = sum(amounts), 0
    first = reward_addresses[0] if reward_addresses else None
    hrp = first.split("-", 1)[-1].split("1", 1)[0] if first else "avax"
    records = [
        utxo_record("P", u, hrp)._replace(reward_type=reward_type)
        for u, reward_type in zip(ordered, types, strict=True)
    ]
    return Reward(staker_tx_hash, validation, delegation, committed), records
