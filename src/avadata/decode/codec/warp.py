"""Avalanche Warp messages as the Etna L1 txs carry them (`vms/platformvm/warp`).

Three small codecs: signed messages (signature type 0 = BitSetSignature), payloads
(`warp/payload`: 0 Hash, 1 AddressedCall) and the P-chain's addressed-call messages
(`warp/message`). Each top-level value starts with codec version 0.
"""

from __future__ import annotations

from typing import Annotated

from avadata.decode.codec import type_ids
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
    Kind,
    ListOf,
    Struct,
    TypeTable,
    struct,
)
from avadata.decode.codec.ids import sha256
from avadata.decode.codec.reader import Reader
from avadata.decode.codec.writer import Writer

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


def _decode(data: bytes, kind: Kind, table: TypeTable) -> object:
    r = Reader(data)
    r.version()
    obj = kind.read(r, table)
    r.done()
    return obj


def _encode(obj: object, kind: Kind, table: TypeTable) -> bytes:
    w = Writer()
    w.version(0)
    kind.write(w, table, obj)
    return w.getvalue()


_SIGNED = Inline(SignedMessage)
_PAYLOAD = Iface(WarpPayload)
_MESSAGE = Iface(PChainMessage)
_CONVERSION = Inline(SubnetToL1ConversionData)


def decode_signed_message(data: bytes) -> SignedMessage:
    msg = _decode(data, _SIGNED, SIGNATURE_TABLE)
    assert isinstance(msg, SignedMessage)
    return msg


def encode_signed_message(msg: SignedMessage) -> bytes:
    return _encode(msg, _SIGNED, SIGNATURE_TABLE)


def message_id(msg: SignedMessage) -> bytes:
    """sha256(codec version + UnsignedMessage bytes)."""
    return sha256(_encode(msg.unsigned, Inline(UnsignedMessage), SIGNATURE_TABLE))


def decode_payload(data: bytes) -> WarpPayload:
    p = _decode(data, _PAYLOAD, PAYLOAD_TABLE)
    assert isinstance(p, WarpPayload)
    return p


def encode_payload(p: WarpPayload) -> bytes:
    return _encode(p, _PAYLOAD, PAYLOAD_TABLE)


def decode_pchain_message(data: bytes) -> PChainMessage:
    m = _decode(data, _MESSAGE, MESSAGE_TABLE)
    assert isinstance(m, PChainMessage)
    return m


def encode_pchain_message(m: PChainMessage) -> bytes:
    return _encode(m, _MESSAGE, MESSAGE_TABLE)


def decode_conversion_data(data: bytes) -> SubnetToL1ConversionData:
    d = _decode(data, _CONVERSION, MESSAGE_TABLE)
    assert isinstance(d, SubnetToL1ConversionData)
    return d


def encode_conversion_data(d: SubnetToL1ConversionData) -> bytes:
    return _encode(d, _CONVERSION, MESSAGE_TABLE)


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
