"""The records of the primary network (P, X and C atomic): decode/primary makes them from
container bytes, indexer/primary adds what only the node knows, store/primary/prepare.py turns
them into rows.

Conventions: IDs and hashes are CB58 text, addresses bech32 without the chain prefix (`avax1...`),
amounts in nAVAX (or the asset's unit) as ints, times Unix seconds. NamedTuples, as the EVM
records (avadata/records.py); a Block is a dataclass because the indexer fills in what the node
tells about it (rewards, refunds) after decoding.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

# The primary network's subnet ID: CB58 of 32 zero bytes.
PRIMARY_SUBNET = "11111111111111111111111111111111LpoYY"


class Utxo(NamedTuple):
    """A UTXO a tx creates, or one the node told of (a reward, a refund)."""

    utxo_id: str
    tx_hash: str
    output_index: int
    asset_id: str
    amount: int
    addresses: tuple[str, ...]
    threshold: int
    platform_locktime: int
    stakeable_locktime: int | None
    staked: bool
    utxo_bytes: str  # 0x hex of the codec's bytes
    reward_type: str | None = None


class Spend(NamedTuple):
    """A UTXO a tx consumes. `amount` only where the input says it (P-chain base inputs)."""

    utxo_id: str
    asset_id: str
    amount: int | None
    imported: bool  # taken from another chain's shared memory


class Asset(NamedTuple):
    """The asset an X-chain CreateAssetTx defines (its ID is the tx's)."""

    asset_id: str
    name: str
    symbol: str
    denomination: int
    asset_type: Literal["nft", "secp256k1"]
    cap: Literal["variable", "fixed"]


class Owner(NamedTuple):
    """An L1 validation's remainingBalanceOwner (who its refund goes to) or
    deactivationOwner (who may disable it)."""

    threshold: int
    addresses: tuple[str, ...]


class L1Validator(NamedTuple):
    """An L1 validation a tx creates (conversion or registration)."""

    validation_id: str
    subnet_id: str
    node_id: str
    remaining_balance_owner: Owner | None
    deactivation_owner: Owner | None = None


class L1Refund(NamedTuple):
    """The UTXO a disable (or a weight-0 removal) refunds an L1 validation's balance into."""

    utxo_id: str
    output_index: int
    validation_id: str


class StakerOpened(NamedTuple):
    """A validation period a staking tx opens (its tx hash is the period's key)."""

    kind: Literal["validator", "delegator", "subnet_validator"]
    node_id: str
    subnet_id: str
    amount_staked: int
    delegation_fee: int | None
    start_ts: int
    end_ts: int
    bls_public_key: str | None
    bls_pop: str | None
    reward_addresses: tuple[str, ...]


class StakerRewarded(NamedTuple):
    """A RewardValidatorTx ends this primary-network staker's period."""

    staker_tx_hash: str


class StakerRemoved(NamedTuple):
    """Subnet validator periods a tx ends: one node's, or (node None) every one of the subnet."""

    node_id: str | None
    subnet_id: str


Staker = StakerOpened | StakerRewarded | StakerRemoved


class Tx(NamedTuple):
    """One accepted tx and everything the store keeps of it."""

    tx_hash: str
    tx_type: str
    position: int  # index in its block
    body: dict[str, Any]  # the codec's JSON (Data API names), served as it is
    utxos: list[Utxo]  # created on its own chain
    exported: list[Utxo]  # put in the destination chain's shared memory
    spends: list[Spend]
    addresses: list[str]  # every address it touches (bech32 or 0x), sorted
    asset: Asset | None
    l1_validations: list[str]  # validation IDs it touches, in l1ValidatorDetails order
    l1_validators: list[L1Validator]
    l1_refund: L1Refund | None
    staker: Staker | None
    # (asset ID, amount) it consumed and did not create again: its fee, net of `l1_deposit`
    burned: tuple[tuple[str, int], ...] = ()
    l1_deposit: int = 0  # nAVAX put into L1 validator balances


class Reward(NamedTuple):
    """What the node says a rewarded staker got (None when unknown: no node, or no answer)."""

    staker_tx_hash: str
    validation_reward: int | None
    delegation_reward: int | None
    committed: bool  # the proposal was committed (paid), not aborted


class NodeUtxo(NamedTuple):
    """A P-chain UTXO no block carries, as the node told it: linked to its owners, and to the
    tx at `position` of its block when the tx is not already theirs (a refund)."""

    utxo: Utxo
    position: int | None = None


class Proposer(NamedTuple):
    """The proposervm wrapper of a post-fork block: its ID, parent, P-chain height, time, and
    the node that signed it (`node_id` None for an unsigned block)."""

    block_id: str
    parent_id: str
    p_chain_height: int
    timestamp: int
    node_id: str | None


class Header(NamedTuple):
    """What a block or vertex listing serves of the container itself."""

    position: int  # the container's position in its Index API index
    parent_ids: tuple[str, ...]  # one for a block, several for a DAG vertex
    block_type: str  # the inner block's codec type (BanffStandardBlock, Vertex, ...)
    size: int  # the container's bytes
    vertex: bool
    proposer: Proposer | None


@dataclass(slots=True)
class Block:
    """One accepted container's txs at its settled time; `rewards` and `node_utxos` are what
    the indexer learns from the node after decoding."""

    block_id: str
    height: int
    timestamp: int
    txs: list[Tx]
    rewards: list[Reward] = field(default_factory=list)
    node_utxos: list[NodeUtxo] = field(default_factory=list)
    header: Header | None = None


class SpentRefund(NamedTuple):
    """An L1 refund UTXO the node no longer had (spent before its tx was indexed), as the
    store and the spending input know it: enough to rebuild the UTXO avalanchego made."""

    tx_hash: str
    output_index: int
    asset_id: str
    amount: int
    owner: Owner
    height: int
    timestamp: int


class StakerAdded(NamedTuple):
    """A primary staker's add as the store holds it (the supply replay's input)."""

    tx_hash: str
    start_ts: int
    end_ts: int
    amount_staked: int
    block_timestamp: int
    height: int
    tx_index: int


class RewardForfeited(NamedTuple):
    """A RewardValidatorTx that did not pay its staker (an aborted proposal)."""

    staker_tx_hash: str
    block_timestamp: int
    height: int
    tx_index: int


class SupplyAnchor(NamedTuple):
    """The node's current supply at a height, and the start supply the replay found (None
    until found)."""

    supply: int
    height: int
    start_supply: int | None


class StakerLive(NamedTuple):
    """The node's view of one current primary staker (platform.getCurrentValidators)."""

    tx_hash: str
    potential_reward: int
    delegatee_reward: int
    uptime: float
    connected: bool


class L1ValidatorLive(NamedTuple):
    """The node's answer for one L1 validation (platform.getL1Validator)."""

    validation_id: str
    balance: int
    removed: bool
    height: int
