"""P-chain (platformvm) transactions, Apricot through Etna (and Helicon's test-only types).

Field order follows `vms/platformvm/txs/*.go`; "base" is the avax.BaseTx inlined first.
Blocks live in pchain_blocks.py; the type-ID table is PCHAIN in type_ids.py.
"""

from __future__ import annotations

import dataclasses
from typing import Annotated

from avadata.decode.codec import type_ids
from avadata.decode.codec.components import (
    Auth,
    BaseFields,
    FxCredential,
    Owner,
    PChainOwner,
    Signer,
    TransferableInput,
    TransferableOutput,
)
from avadata.decode.codec.fields import (
    BLS_PUBKEY,
    BLS_SIG,
    ID32,
    NODE_ID,
    STR,
    U8,
    U32,
    U64,
    VAR_BYTES,
    Iface,
    Inline,
    JsonName,
    ListOf,
    Struct,
    struct,
)
from avadata.decode.codec.signed import SignedTx


class PUnsignedTx(Struct):
    """Role: any P-chain unsigned tx."""

    __slots__ = ()


ID = Annotated[bytes, ID32]
U32F = Annotated[int, U32]
U64F = Annotated[int, U64]
OwnerF = Annotated[Owner, Iface(Owner)]
AuthF = Annotated[Auth, Iface(Auth)]
StakeOuts = Annotated[
    tuple[TransferableOutput, ...], ListOf(Inline(TransferableOutput), "stake outputs")
]


@struct
class Validator(Struct):
    node_id: Annotated[bytes, NODE_ID]
    start: U64F
    end: U64F
    weight: U64F


ValidatorF = Annotated[Validator, Inline(Validator)]


@struct
class BaseTx(PUnsignedTx):
    base: BaseFields


@struct
class AddValidatorTx(PUnsignedTx):
    base: BaseFields
    validator: ValidatorF
    stake_outputs: StakeOuts
    rewards_owner: OwnerF
    delegation_shares: U32F


@struct
class AddSubnetValidatorTx(PUnsignedTx):
    base: BaseFields
    validator: ValidatorF
    subnet_id: ID
    subnet_auth: AuthF


@struct
class AddDelegatorTx(PUnsignedTx):
    base: BaseFields
    validator: ValidatorF
    stake_outputs: StakeOuts
    rewards_owner: OwnerF


@struct
class CreateChainTx(PUnsignedTx):
    base: BaseFields
    subnet_id: ID
    chain_name: Annotated[str, STR]
    vm_id: ID
    fx_ids: Annotated[tuple[bytes, ...], ListOf(ID32, "fx IDs")]
    genesis_data: Annotated[bytes, VAR_BYTES]
    subnet_auth: AuthF


@struct
class CreateSubnetTx(PUnsignedTx):
    base: BaseFields
    owner: OwnerF


@struct
class ImportTx(PUnsignedTx):
    base: BaseFields
    source_chain: ID
    imported_inputs: Annotated[
        tuple[TransferableInput, ...], ListOf(Inline(TransferableInput), "imported inputs")
    ]


@struct
class ExportTx(PUnsignedTx):
    base: BaseFields
    destination_chain: ID
    exported_outputs: Annotated[
        tuple[TransferableOutput, ...], ListOf(Inline(TransferableOutput), "exported outputs")
    ]


@struct
class AdvanceTimeTx(PUnsignedTx):
    time: U64F


@struct
class RewardValidatorTx(PUnsignedTx):
    tx_id: Annotated[bytes, ID32, JsonName("stakingTxHash")]  # the staker tx being rewarded


@struct
class RemoveSubnetValidatorTx(PUnsignedTx):
    base: BaseFields
    node_id: Annotated[bytes, NODE_ID]
    subnet_id: ID
    subnet_auth: AuthF


@struct
class TransformSubnetTx(PUnsignedTx):
    base: BaseFields
    subnet_id: ID
    asset_id: ID
    initial_supply: U64F
    maximum_supply: U64F
    min_consumption_rate: U64F
    max_consumption_rate: U64F
    min_validator_stake: U64F
    max_validator_stake: U64F
    min_stake_duration: U32F
    max_stake_duration: U32F
    min_delegation_fee: U32F
    min_delegator_stake: U64F
    max_validator_weight_factor: Annotated[int, U8]
    uptime_requirement: U32F
    subnet_auth: AuthF


@struct
class AddPermissionlessValidatorTx(PUnsignedTx):
    base: BaseFields
    validator: ValidatorF
    subnet_id: ID
    signer: Annotated[Signer, Iface(Signer)]
    stake_outputs: StakeOuts
    validator_rewards_owner: OwnerF
    delegator_rewards_owner: OwnerF
    delegation_shares: U32F


@struct
class AddPermissionlessDelegatorTx(PUnsignedTx):
    base: BaseFields
    validator: ValidatorF
    subnet_id: ID
    stake_outputs: StakeOuts
    rewards_owner: OwnerF


@struct
class TransferSubnetOwnershipTx(PUnsignedTx):
    base: BaseFields
    subnet_id: ID
    subnet_auth: AuthF  # note: auth precedes the new owner on the wire
    owner: OwnerF


@struct
class L1Validator(Struct):
    node_id: Annotated[bytes, VAR_BYTES]  # length-prefixed, 20 bytes in practice
    weight: U64F
    balance: U64F
    public_key: Annotated[bytes, BLS_PUBKEY]  # inline ProofOfPossession, no type ID
    proof_of_possession: Annotated[bytes, BLS_SIG]
    remaining_balance_owner: Annotated[PChainOwner, Inline(PChainOwner)]
    deactivation_owner: Annotated[PChainOwner, Inline(PChainOwner)]


@struct
class ConvertSubnetToL1Tx(PUnsignedTx):
    base: BaseFields
    subnet_id: ID
    chain_id: ID
    address: Annotated[bytes, VAR_BYTES]
    validators: Annotated[tuple[L1Validator, ...], ListOf(Inline(L1Validator), "validators")]
    subnet_auth: AuthF


@struct
class RegisterL1ValidatorTx(PUnsignedTx):
    base: BaseFields
    balance: U64F
    proof_of_possession: Annotated[bytes, BLS_SIG]
    message: Annotated[bytes, VAR_BYTES]  # a signed warp message; see warp.py


@struct
class SetL1ValidatorWeightTx(PUnsignedTx):
    base: BaseFields
    message: Annotated[bytes, VAR_BYTES]


@struct
class IncreaseL1ValidatorBalanceTx(PUnsignedTx):
    base: BaseFields
    validation_id: ID
    balance: U64F


@struct
class DisableL1ValidatorTx(PUnsignedTx):
    base: BaseFields
    validation_id: ID
    disable_auth: AuthF


@struct
class AddAutoRenewedValidatorTx(PUnsignedTx):
    base: BaseFields
    validator_node_id: Annotated[bytes, VAR_BYTES]
    signer: Annotated[Signer, Iface(Signer)]
    stake_outputs: StakeOuts
    validator_rewards_owner: OwnerF
    delegator_rewards_owner: OwnerF
    validator_authority: OwnerF
    delegation_shares: U32F
    auto_compound_reward_shares: U32F
    period: U64F


@struct
class SetAutoRenewedValidatorConfigTx(PUnsignedTx):
    base: BaseFields
    tx_id: ID
    auth: AuthF
    auto_compound_reward_shares: U32F
    period: U64F


@struct
class RewardAutoRenewedValidatorTx(PUnsignedTx):
    tx_id: ID
    timestamp: U64F


@struct
class PChainTx(SignedTx):
    unsigned: Annotated[PUnsignedTx, Iface(PUnsignedTx)]
    credentials: Annotated[tuple[FxCredential, ...], ListOf(Iface(FxCredential), "credentials")]
    raw: bytes = dataclasses.field(default=b"", compare=False, repr=False)


TX_CLASSES = type_ids.by_name(
    BaseTx,
    AddValidatorTx,
    AddSubnetValidatorTx,
    AddDelegatorTx,
    CreateChainTx,
    CreateSubnetTx,
    ImportTx,
    ExportTx,
    AdvanceTimeTx,
    RewardValidatorTx,
    RemoveSubnetValidatorTx,
    TransformSubnetTx,
    AddPermissionlessValidatorTx,
    AddPermissionlessDelegatorTx,
    TransferSubnetOwnershipTx,
    ConvertSubnetToL1Tx,
    RegisterL1ValidatorTx,
    SetL1ValidatorWeightTx,
    IncreaseL1ValidatorBalanceTx,
    DisableL1ValidatorTx,
    AddAutoRenewedValidatorTx,
    SetAutoRenewedValidatorConfigTx,
    RewardAutoRenewedValidatorTx,
)
