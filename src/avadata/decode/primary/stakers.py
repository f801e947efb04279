"""Validation-period records from P-chain transactions (pure: no I/O).

Stage: decode. A staking tx opens a period (validator, delegator or permissioned subnet
validator); RewardValidatorTx closes a primary-network one (its reward amounts come from the
node later: the blocks do not carry them); RemoveSubnetValidatorTx closes a subnet one, and
ConvertSubnetToL1Tx every open one of its subnet.
"""

from __future__ import annotations

from typing import Any, Literal

from avadata.decode.codec.ids import bech32_address, cb58_encode, node_id_str
from avadata.decode.codec.pchain import (
    AddDelegatorTx,
    AddPermissionlessDelegatorTx,
    AddPermissionlessValidatorTx,
    AddSubnetValidatorTx,
    AddValidatorTx,
    ConvertSubnetToL1Tx,
    RemoveSubnetValidatorTx,
    RewardValidatorTx,
)
from avadata.records.primary import Staker, StakerOpened, StakerRemoved, StakerRewarded

VALIDATORS = (AddValidatorTx, AddPermissionlessValidatorTx)
DELEGATORS = (AddDelegatorTx, AddPermissionlessDelegatorTx)


def _opened(unsigned: Any, hrp: str) -> StakerOpened:
    v = unsigned.validator
    subnet = getattr(unsigned, "subnet_id", bytes(32))
    signer: Any = getattr(unsigned, "signer", None)
    public_key = getattr(signer, "public_key", None)
    kind: Literal["validator", "delegator", "subnet_validator"]
    if isinstance(unsigned, AddSubnetValidatorTx) or (
        isinstance(unsigned, AddPermissionlessValidatorTx) and subnet != bytes(32)
    ):
        kind = "subnet_validator"
    else:
        kind = "validator" if isinstance(unsigned, VALIDATORS) else "delegator"
    owner = getattr(unsigned, "validator_rewards_owner", None) or getattr(
        unsigned, "rewards_owner", None
    )
    return StakerOpened(
        kind=kind,
        node_id=node_id_str(v.node_id),
        subnet_id=cb58_encode(subnet),
        amount_staked=int(v.weight),
        delegation_fee=getattr(unsigned, "delegation_shares", None)
        if isinstance(unsigned, VALIDATORS)
        else None,
        start_ts=int(v.start),
        end_ts=int(v.end),
        bls_public_key="0x" + public_key.hex() if public_key else None,
        bls_pop="0x" + signer.proof_of_possession.hex() if public_key else None,
        reward_addresses=tuple(bech32_address(a, hrp, "P") for a in owner.addresses)
        if owner is not None
        else (),
    )


def staker_record(unsigned: Any, hrp: str) -> Staker | None:
    """What `unsigned` opens or closes, if it is a staking tx."""
    if isinstance(unsigned, (*VALIDATORS, *DELEGATORS, AddSubnetValidatorTx)):
        return _opened(unsigned, hrp)
    if isinstance(unsigned, RewardValidatorTx):
        return StakerRewarded(cb58_encode(unsigned.tx_id))
    if isinstance(unsigned, ConvertSubnetToL1Tx):
        # The subnet's permissioned validators end with the conversion (its L1 validators
        # replace them): every open period of that subnet, whatever the node.
        return StakerRemoved(None, cb58_encode(unsigned.subnet_id))
    if isinstance(unsigned, RemoveSubnetValidatorTx):
        return StakerRemoved(node_id_str(unsigned.node_id), cb58_encode(unsigned.subnet_id))
    return None
