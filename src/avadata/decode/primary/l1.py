"""What a P-chain tx says about L1 validations (pure): the `l1ValidatorDetails` it carries,
the refund owners it sets, the validation whose balance it refunds.

Stage: decode.
"""

from __future__ import annotations

from typing import Any

from avadata.decode.codec.components import PChainOwner
from avadata.decode.codec.ids import bech32_address, cb58_encode, node_id_str
from avadata.decode.codec.pchain import (
    ConvertSubnetToL1Tx,
    DisableL1ValidatorTx,
    IncreaseL1ValidatorBalanceTx,
    RegisterL1ValidatorTx,
    SetL1ValidatorWeightTx,
)
from avadata.decode.codec.warp import (
    L1ValidatorWeight,
    RegisterL1Validator,
    l1_message_of,
    validation_id_of_conversion,
    validation_id_of_registration,
)
from avadata.records.primary import Owner


def _l1_entry(
    vid: bytes,
    node_id: bytes | None = None,
    subnet_id: bytes | None = None,
    weight: int | None = None,
    balance_change: int | None = None,
    bls: tuple[bytes, bytes] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"validationId": cb58_encode(vid), "validationIdHex": "0x" + vid.hex()}
    if node_id is not None:
        out["nodeId"] = node_id_str(node_id)
    if subnet_id is not None:
        out["subnetId"] = cb58_encode(subnet_id)
    if weight is not None:
        out["weight"] = weight
    if balance_change is not None:
        out["balanceChange"] = balance_change
    if bls is not None:
        out["blsCredentials"] = {
            "publicKey": "0x" + bls[0].hex(),
            "proofOfPossession": "0x" + bls[1].hex(),
        }
    return out


def l1_details(unsigned: Any) -> list[dict[str, Any]]:
    """The `l1ValidatorDetails` entries of a P-chain tx as far as the tx itself carries them,
    one per L1 validation it touches. Later txs name only the validation ID, and the balance
    left is chain state (continuous fee, refunds): the API completes them from the store
    (node, subnet, BLS key of the creating tx; the weight an increase or disable leaves as it
    was) and from the node's snapshot (remainingBalance)."""
    if isinstance(unsigned, ConvertSubnetToL1Tx):
        return [
            _l1_entry(
                validation_id_of_conversion(unsigned.subnet_id, i),
                v.node_id,
                unsigned.subnet_id,
                v.weight,
                v.balance,
                (v.public_key, v.proof_of_possession),
            )
            for i, v in enumerate(unsigned.validators)
        ]
    if isinstance(unsigned, RegisterL1ValidatorTx | SetL1ValidatorWeightTx):
        _, call, message = l1_message_of(unsigned.message)
        if isinstance(message, RegisterL1Validator) and isinstance(unsigned, RegisterL1ValidatorTx):
            return [
                _l1_entry(
                    validation_id_of_registration(call.payload),
                    message.node_id,
                    message.subnet_id,
                    message.weight,
                    unsigned.balance,
                    (message.bls_public_key, unsigned.proof_of_possession),
                )
            ]
        if isinstance(message, L1ValidatorWeight):
            return [_l1_entry(message.validation_id, weight=message.weight)]
        return []
    if isinstance(unsigned, IncreaseL1ValidatorBalanceTx):
        return [_l1_entry(unsigned.validation_id, balance_change=unsigned.balance)]
    if isinstance(unsigned, DisableL1ValidatorTx):
        # Its refund (the balance left) is chain state, not in the tx: no balanceChange.
        return [_l1_entry(unsigned.validation_id)]
    return []


def validator_owners(unsigned: Any) -> dict[bytes, tuple[PChainOwner, PChainOwner]]:
    """validation ID -> (remainingBalanceOwner, deactivationOwner) of each L1 validation this
    tx creates: who a later disable or removal refunds the balance to, and who may disable
    it (later txs name only the ID)."""
    if isinstance(unsigned, ConvertSubnetToL1Tx):
        return {
            validation_id_of_conversion(unsigned.subnet_id, i): (
                v.remaining_balance_owner,
                v.deactivation_owner,
            )
            for i, v in enumerate(unsigned.validators)
        }
    if isinstance(unsigned, RegisterL1ValidatorTx):
        _, call, message = l1_message_of(unsigned.message)
        if isinstance(message, RegisterL1Validator):
            return {
                validation_id_of_registration(call.payload): (
                    message.remaining_balance_owner,
                    message.disable_owner,
                )
            }
    return {}


def refunded_validation(unsigned: Any, details: list[dict[str, Any]]) -> str | None:
    """The validation whose balance this tx returns to its owner: a disable, or a weight
    message setting 0 (the validator is removed)."""
    if isinstance(unsigned, DisableL1ValidatorTx):
        return str(details[0]["validationId"])
    if isinstance(unsigned, SetL1ValidatorWeightTx) and details and details[0]["weight"] == 0:
        return str(details[0]["validationId"])
    return None


def owner_record(owner: PChainOwner, hrp: str) -> Owner:
    return Owner(int(owner.threshold), tuple(bech32_address(a, hrp) for a in owner.addresses))
