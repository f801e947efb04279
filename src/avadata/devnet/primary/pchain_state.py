"""The P-chain simulator's state: stakers, subnets, blockchains and L1 validators.

Stage: devnet (P-chain simulator). Pure data. This is the "validator set" half of the
simulators' independent truth; the facade's validators API and platform.getBlockchains read
it through `PChainState`.

L1 validator balance rule (Etna continuous fee): an active L1 validator pays
`L1_FEE_PER_SECOND` nAVAX per second (avalanchego's minimum price, which applies while the
number of active L1 validators is below target, as on the devnet). `remaining(t)` is the
balance left at time t; the validator is active while that is above zero and it is not
disabled. Any balance change first settles the fee accrued so far.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from avadata.decode.codec.components import OutputOwners, PChainOwner, TransferableOutput
from avadata.devnet.primary.l1_config import EvmChainConfig

L1_FEE_PER_SECOND = 512


@dataclass
class Staker:
    """A primary-network validator or delegator, or a permissioned subnet validator."""

    tx_id: bytes
    kind: str  # "validator", "delegator" or "subnet_validator"
    node_id: bytes
    subnet_id: bytes
    start: int
    end: int
    weight: int
    potential_reward: int = 0
    stake: tuple[TransferableOutput, ...] = ()
    n_outputs: int = 0  # len(base outputs): returned stake and rewards get indices after them
    rewards_owner: OutputOwners | None = None
    delegation_rewards_owner: OutputOwners | None = None
    shares: int = 0  # validators: delegation fee in parts per million
    delegatee_reward: int = 0  # validators: commission accrued from rewarded delegators
    bls_public_key: bytes | None = None


@dataclass
class Subnet:
    subnet_id: bytes
    owner: bytes  # the single address of its owner (threshold 1)
    chains: list[bytes] = field(default_factory=list)
    converted: bool = False
    manager_chain: bytes | None = None
    manager_address: bytes = b""
    conversion_tx: bytes | None = None


@dataclass
class Blockchain:
    chain_id: bytes
    name: str
    subnet_id: bytes
    vm_id: bytes
    evm: EvmChainConfig | None = None
    created_at: int = 0


@dataclass
class L1Validator:
    validation_id: bytes
    subnet_id: bytes
    node_id: bytes
    bls_public_key: bytes
    weight: int
    balance: int  # as of `updated`
    updated: int
    start: int
    remaining_balance_owner: PChainOwner
    deactivation_owner: PChainOwner
    node_label: str = ""  # the keyring node whose BLS key it uses
    min_nonce: int = 0
    disabled: bool = False

    def remaining(self, t: int) -> int:
        if self.disabled:
            return 0
        return max(0, self.balance - L1_FEE_PER_SECOND * max(0, t - self.updated))

    def active(self, t: int) -> bool:
        return self.remaining(t) > 0

    def settle(self, t: int) -> None:
        self.balance = self.remaining(t)
        self.updated = max(t, self.updated)


@dataclass
class PChainState:
    time: int = 0
    height: int = 0
    supply: int = 0
    stakers: dict[bytes, Staker] = field(default_factory=dict)
    subnets: dict[bytes, Subnet] = field(default_factory=dict)
    chains: dict[bytes, Blockchain] = field(default_factory=dict)
    l1_validators: dict[bytes, L1Validator] = field(default_factory=dict)
    removed_l1_validators: dict[bytes, L1Validator] = field(default_factory=dict)
    # height -> time of every accepted P block: X and C wrappers name the P height of their time
    heights: list[tuple[int, int]] = field(default_factory=list)
    # staking tx ID -> (index, amount, owner) of each reward UTXO it was paid, kept after they
    # are spent, as avalanchego keeps them for platform.getRewardUTXOs
    reward_utxos: dict[bytes, list[tuple[int, int, OutputOwners]]] = field(default_factory=dict)
    # disabling or removing tx ID -> (output index, amount, owner) of the balance refunded to
    # the validator's remainingBalanceOwner: the ledger tests check the indexer against
    refunds: dict[bytes, tuple[int, int, PChainOwner]] = field(default_factory=dict)
    # staking tx ID -> the potential reward fixed when it was added, kept after it ends: the
    # ledger the indexer's own reward-formula replay is checked against
    potential_rewards: dict[bytes, int] = field(default_factory=dict)

    def current_stakers(self, kind: str | None = None, subnet: bytes | None = None) -> list[Staker]:
        return [
            s
            for s in self.stakers.values()
            if (kind is None or s.kind == kind) and (subnet is None or s.subnet_id == subnet)
        ]

    def validator_of(self, node_id: bytes, subnet: bytes) -> Staker | None:
        for s in self.stakers.values():
            if s.node_id == node_id and s.subnet_id == subnet and s.kind != "delegator":
                return s
        return None

    def next_reward(self) -> Staker | None:
        """The staker the next RewardValidatorTx removes: earliest end, delegators before
        validators at the same time (avalanchego's staker priority), then tx ID."""
        rewarded = [s for s in self.stakers.values() if s.kind != "subnet_validator"]
        if not rewarded:
            return None
        return min(rewarded, key=lambda s: (s.end, s.kind != "delegator", s.tx_id))

    def height_at(self, t: int) -> int:
        """The P-chain height accepted by time t (what a proposervm block at t references)."""
        best = 0
        for height, time in reversed(self.heights):
            if time <= t:
                best = height
                break
        return best
