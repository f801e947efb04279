"""C-chain atomic txs (coreth `plugin/evm/atomic`) and the block ExtData that carries them.

Before ApricotPhase5 ExtData = codec version + one signed tx; from AP5 on it is codec version
+ u32 count + that many signed txs (an empty list is invalid; no atomic txs = empty ExtData).
"""

from __future__ import annotations

import dataclasses
from typing import Annotated

from avadata.decode.codec import components, type_ids
from avadata.decode.codec.components import FxCredential, TransferableInput, TransferableOutput
from avadata.decode.codec.fields import (
    EVM_ADDRESS,
    ID32,
    U32,
    U64,
    Iface,
    Inline,
    JsonName,
    ListOf,
    Struct,
    TypeTable,
    struct,
)
from avadata.decode.codec.signed import SignedTx

ID = Annotated[bytes, ID32]


class AtomicUnsignedTx(Struct):
    __slots__ = ()


@struct
class EVMOutput(Struct):
    address: Annotated[bytes, EVM_ADDRESS, JsonName("toAddress")]
    amount: Annotated[int, U64]  # nAVAX (9 decimals) even though EVM balances have 18
    asset_id: ID


@struct
class EVMInput(Struct):
    address: Annotated[bytes, EVM_ADDRESS, JsonName("fromAddress")]
    amount: Annotated[int, U64]
    asset_id: ID
    nonce: Annotated[int, U64]


@struct
class UnsignedImportTx(AtomicUnsignedTx):
    network_id: Annotated[int, U32]
    blockchain_id: ID
    source_chain: ID
    imported_inputs: Annotated[
        tuple[TransferableInput, ...], ListOf(Inline(TransferableInput), "imported inputs")
    ]
    outputs: Annotated[
        tuple[EVMOutput, ...], ListOf(Inline(EVMOutput), "EVM outputs"), JsonName("evmOutputs")
    ]


@struct
class UnsignedExportTx(AtomicUnsignedTx):
    network_id: Annotated[int, U32]
    blockchain_id: ID
    destination_chain: ID
    inputs: Annotated[
        tuple[EVMInput, ...], ListOf(Inline(EVMInput), "EVM inputs"), JsonName("evmInputs")
    ]
    exported_outputs: Annotated[
        tuple[TransferableOutput, ...], ListOf(Inline(TransferableOutput), "exported outputs")
    ]


@struct
class AtomicTx(SignedTx):
    unsigned: Annotated[AtomicUnsignedTx, Iface(AtomicUnsignedTx)]
    credentials: Annotated[tuple[FxCredential, ...], ListOf(Iface(FxCredential), "credentials")]
    raw: bytes = dataclasses.field(default=b"", compare=False, repr=False)


ATOMIC_TABLE = TypeTable(
    "coreth atomic",
    type_ids.bind(
        "coreth atomic",
        type_ids.CCHAIN_ATOMIC,
        {
            "UnsignedImportTx": UnsignedImportTx,
            "UnsignedExportTx": UnsignedExportTx,
            **components.SECP256K1FX_CLASSES,
        },
    ),
)
