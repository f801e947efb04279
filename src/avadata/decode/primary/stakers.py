"""Validation-period rows from P-chain transactions (pure: no I/O).

Stage: decode. A staking tx opens a period (validator, delegator or permissioned subnet
validator); RewardValidatorTx closes a primary-network one (its reward amounts come from the
node later: the blocks do not carry them); RemoveSubnetValidatorTx closes a subnet one, and
ConvertSubnetToL1Tx every open one of its subnet.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

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

PRIMARY_SUBNET = cb58_encode(bytes(32))
VALIDATORS = (AddValidatorTx, AddPermissionlessValidatorTx)
DELEGATORS = (AddDelegatorTx, AddPermissionlessDelegatorTx)


@dataclass(slots=True)
class StakerRows:
    opened: list[dict[str, Any]] = field(default_factory=list)
    rewarded: list[dict[str, Any]] = field(default_factory=list)  # reward_tx_hash, ...
    removed: list[dict[str, Any]] = field(default_factory=list)


def _owners(owner: Any, hrp: str) -> str:
    return orjson.dumps([bech32_address(a, hrp, "P") for a in owner.addresses]).decode()


def staker_rows(unsigned: Any, tx_hash: str, ts: int, hrp: str, rows: StakerRows) -> None:
    """Add to `rows` what `unsigned` (accepted at block time `ts`) opens or closes."""
    if isinstance(unsigned, (*VALIDATORS, *DELEGATORS, AddSubnetValidatorTx)):
        v = unsigned.validator
        subnet = getattr(unsigned, "subnet_id", bytes(32))
        signer: Any = getattr(unsigned, "signer", None)
        public_key = getattr(signer, "public_key", None)
        if isinstance(unsigned, AddSubnetValidatorTx) or (
            isinstance(unsigned, AddPermissionlessValidatorTx) and subnet != bytes(32)
        ):
            kind = "subnet_validator"
        else:
            kind = "validator" if isinstance(unsigned, VALIDATORS) else "delegator"
        owner = getattr(unsigned, "validator_rewards_owner", None) or getattr(
            unsigned, "rewards_owner", None
        )
        rows.opened.append(
            {
                "tx_hash": tx_hash,
                "kind": kind,
                "node_id": node_id_str(v.node_id),
                "subnet_id": cb58_encode(subnet),
                "amount_staked": int(v.weight),
                "delegation_fee": getattr(unsigned, "delegation_shares", None)
                if isinstance(unsigned, VALIDATORS)
                else None,
                "start_ts": int(v.start),
                "end_ts": int(v.end),
                "bls_public_key": "0x" + public_key.hex() if public_key else None,
                "bls_pop": "0x" + signer.proof_of_possession.hex() if public_key else None,
                "reward_addresses": _owners(owner, hrp) if owner is not None else "[]",
                "block_timestamp": ts,
            }
        )
    elif isinstance(unsigned, RewardValidatorTx):
        rows.rewarded.append(
            {
                "b_tx_hash": cb58_encode(unsigned.tx_id),
                "reward_tx_hash": tx_hash,
                "reward_timestamp": ts,
            }
        )
    elif isinstance(unsigned, ConvertSubnetToL1Tx):
        # The subnet's permissioned validators end with the conversion (its L1 validators
        # replace them): every open period of that subnet, whatever the node.
        rows.removed.append(
            {
                "b_node_id": None,
                "b_subnet_id": cb58_encode(unsigned.subnet_id),
                "remove_tx_hash": tx_hash,
                "remove_timestamp": ts,
            }
        )
    elif isinstance(unsigned, RemoveSubnetValidatorTx):
        rows.removed.append(
            {
                "b_node_id": node_id_str(unsigned.node_id),
                "b_subnet_id": cb58_encode(unsigned.subnet_id),
                "remove_tx_hash": tx_hash,
                "remove_timestamp": ts,
            }
        )
