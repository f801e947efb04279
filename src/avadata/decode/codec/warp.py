"""Avalanche Warp messages as the Etna L1 txs carry them (`vms/platformvm/warp`).

Three small codecs: signed messages (signature type 0 = BitSetSignature), payloads
(`warp/payload`: 0 Hash, 1 AddressedCall) and the P-chain's addressed-call messages
(`warp/message`). Each top-level value starts with codec version 0.
"""

from __future__ import annotations

from typing import Annotated

from avadata.decode.codec import type_ids
from avadata.decode.codec.api import Top, encode_top
from avadata.decode.codec.components import PChainOwner
from avadata.decode.codec.fields import (
    BLS_PUBKEY,
    BLS_SIG,
    BOOL,
    ID32,
    U32,
    U64,
    VAR_BYTES,
    Iface,
    Inline,
    ListOf,
    Struct,
    TypeTable,
    struct,
)
from avadata.decode.codec.ids import sha256

ID = Annotated[bytes, ID32]


class WarpSignature(Struct):
    __slots__ = ()


class WarpPayload(Struct):
    __slots__ = ()


class PChainMessage(Struct):
    __slots__ = ()


@struct
class BitSetSignature(WarpSignature):
    signers: Annotated[bytes, VAR_BYTES]  # big-endian bitset over the canonical validator set
    signature: Annotated[bytes, BLS_SIG]  # aggregate BLS signature


@struct
class UnsignedMessage(Struct):
    network_id: Annotated[int, U32]
    source_chain_id: ID
    payload: Annotated[bytes, VAR_BYTES]


@struct
class SignedMessage(Struct):
    unsigned: Annotated[UnsignedMessage, Inline(UnsignedMessage)]
    signature: Annotated[WarpSignature, Iface(WarpSignature)]


@struct
class Hash(WarpPayload):
    hash: ID


@struct
class AddressedCall(WarpPayload):
    source_address: Annotated[bytes, VAR_BYTES]
    payload: Annotated[bytes, VAR_BYTES]


@struct
class SubnetToL1Conversion(PChainMessage):
    id: ID  # sha256 of the SubnetToL1ConversionData bytes


@struct
class RegisterL1Validator(PChainMessage):
    subnet_id: ID
    node_id: Annotated[bytes, VAR_BYTES]
    bls_public_key: Annotated[bytes, BLS_PUBKEY]
    expiry: Annotated[int, U64]
    remaining_balance_owner: Annotated[PChainOwner, Inline(PChainOwner)]
    disable_owner: Annotated[PChainOwner, Inline(PChainOwner)]
    weight: Annotated[int, U64]


@struct
class L1ValidatorRegistration(PChainMessage):
    validation_id: ID
    registered: Annotated[bool, BOOL]


@struct
class L1ValidatorWeight(PChainMessage):
    validation_id: ID
    nonce: Annotated[int, U64]
    weight: Annotated[int, U64]


@struct
class ConversionValidator(Struct):
    node_id: Annotated[bytes, VAR_BYTES]
    bls_public_key: Annotated[bytes, BLS_PUBKEY]
    weight: Annotated[int, U64]


@struct
class SubnetToL1ConversionData(Struct):
    """A plain struct (no type ID) whose sha256 is the conversion ID."""

    subnet_id: ID
    manager_chain_id: ID
    manager_address: Annotated[bytes, VAR_BYTES]
    validators: Annotated[
        tuple[ConversionValidator, ...], ListOf(Inline(ConversionValidator), "validators")
    ]


SIGNATURE_TABLE = TypeTable(
    "warp", type_ids.bind("warp", type_ids.WARP_SIGNATURES, {"BitSetSignature": BitSetSignature})
)
PAYLOAD_TABLE = TypeTable(
    "warp payload",
    type_ids.bind(
        "warp payload",
        type_ids.WARP_PAYLOADS,
        {"Hash": Hash, "AddressedCall": AddressedCall},
    ),
)
MESSAGE_TABLE = TypeTable(
    "warp message",
    type_ids.bind(
        "warp message",
        type_ids.WARP_PCHAIN_MESSAGES,
        {
            "SubnetToL1Conversion": SubnetToL1Conversion,
            "RegisterL1Validator": RegisterL1Validator,
            "L1ValidatorRegistration": L1ValidatorRegistration,
            "L1ValidatorWeight": L1ValidatorWeight,
        },
    ),
)


# No size cap: a warp message arrives inside a tx or a block already held to theirs.
_SIGNED = Top[SignedMessage](Inline(SignedMessage), SIGNATURE_TABLE, None, "warp message")
_PAYLOAD = Top[WarpPayload](Iface(WarpPayload), PAYLOAD_TABLE, None, "warp payload")
_MESSAGE = Top[PChainMessage](Iface(PChainMessage), MESSAGE_TABLE, None, "P-chain message")
_CONVERSION = Top[SubnetToL1ConversionData](
    Inline(SubnetToL1ConversionData), MESSAGE_TABLE, None, "conversion data"
)
decode_signed_message, encode_signed_message = _SIGNED.decode, _SIGNED.encode
decode_payload, encode_payload = _PAYLOAD.decode, _PAYLOAD.encode
decode_pchain_message, encode_pchain_message = _MESSAGE.decode, _MESSAGE.encode
decode_conversion_data, encode_conversion_data = _CONVERSION.decode, _CONVERSION.encode


def message_id(msg: SignedMessage) -> bytes:
    """sha256(codec version + UnsignedMessage bytes)."""
    return sha256(encode_top(msg.unsigned, Inline(UnsignedMessage), SIGNATURE_TABLE))


def l1_message_of(tx_message: bytes) -> tuple[SignedMessage, AddressedCall, PChainMessage]:
    """Unpack a RegisterL1ValidatorTx / SetL1ValidatorWeightTx `message` down to its
    P-chain message (RegisterL1Validator or L1ValidatorWeight)."""
    signed = decode_signed_message(tx_message)
    call = decode_payload(signed.unsigned.payload)
    if not isinstance(call, AddressedCall):
        from avadata.decode.codec.reader import DecodeError

        raise DecodeError(0, "an AddressedCall warp payload")
    return signed, call, decode_pchain_message(call.payload)


def validation_id_of_registration(addressed_call_payload: bytes) -> bytes:
    """RegisterL1ValidatorTx validation ID: sha256 of the RegisterL1Validator message bytes."""
    return sha256(addressed_call_payload)


def validation_id_of_conversion(subnet_id: bytes, index: int) -> bytes:
    """ConvertSubnetToL1Tx validator i: sha256(subnetID || uint32_be(i))."""
    return sha256(subnet_id + index.to_bytes(4, "big"))
