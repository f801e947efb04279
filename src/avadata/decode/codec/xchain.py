"""X-chain (avm) transactions, the Cortina StandardBlock and legacy DAG vertices."""

from __future__ import annotations

import dataclasses
from typing import Annotated

from avadata.decode.codec import components, type_ids
from avadata.decode.codec.components import (
    BaseFields,
    FxCredential,
    FxOperation,
    FxState,
    TransferableInput,
    TransferableOutput,
)
from avadata.decode.codec.fields import (
    ID32,
    STR,
    U8,
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
from avadata.decode.codec.signed import SignedTx, TxSpan
from avadata.decode.codec.xchain_fx import FX_CLASSES

ID = Annotated[bytes, ID32]


class XUnsignedTx(Struct):
    """Role: any X-chain unsigned tx."""

    __slots__ = ()


class XBlock(Struct):
    __slots__ = ()


@struct
class InitialState(Struct):
    fx_index: Annotated[int, U32]
    outputs: Annotated[tuple[FxState, ...], ListOf(Iface(FxState), "initial state outputs")]


@struct
class UTXOID(Struct):
    tx_id: ID
    output_index: Annotated[int, U32]


@struct
class Operation(Struct):
    asset_id: ID
    utxo_ids: Annotated[tuple[UTXOID, ...], ListOf(Inline(UTXOID), "UTXO IDs")]
    operation: Annotated[FxOperation, Iface(FxOperation)]


@struct
class BaseTx(XUnsignedTx):
    base: BaseFields


@struct
class CreateAssetTx(XUnsignedTx):
    base: BaseFields
    name: Annotated[str, STR]
    symbol: Annotated[str, STR]
    denomination: Annotated[int, U8]
    initial_states: Annotated[
        tuple[InitialState, ...], ListOf(Inline(InitialState), "initial states")
    ]


@struct
class OperationTx(XUnsignedTx):
    base: BaseFields
    operations: Annotated[tuple[Operation, ...], ListOf(Inline(Operation), "operations")]


@struct
class ImportTx(XUnsignedTx):
    base: BaseFields
    source_chain: ID
    imported_inputs: Annotated[
        tuple[TransferableInput, ...], ListOf(Inline(TransferableInput), "imported inputs")
    ]


@struct
class ExportTx(XUnsignedTx):
    base: BaseFields
    destination_chain: ID
    exported_outputs: Annotated[
        tuple[TransferableOutput, ...], ListOf(Inline(TransferableOutput), "exported outputs")
    ]


@struct
class XChainTx(SignedTx):
    # Go wraps each credential in FxCredential{Credential interface}; only the interface is
    # serialized, so on the wire it is a plain interface list like the P-chain's.
    unsigned: Annotated[XUnsignedTx, Iface(XUnsignedTx)]
    credentials: Annotated[tuple[FxCredential, ...], ListOf(Iface(FxCredential), "credentials")]
    raw: bytes = dataclasses.field(default=b"", compare=False, repr=False)


@struct
class StandardBlock(XBlock):
    parent_id: ID
    height: Annotated[int, U64]
    time: Annotated[int, U64]
    merkle_root: ID  # unpopulated (zero) in practice
    transactions: Annotated[tuple[XChainTx, ...], ListOf(TxSpan(XChainTx), "transactions")]


@struct
class Vertex(Struct):
    """Codec version 0 DAG vertex: each tx is a length-prefixed signed avm tx with version."""

    chain_id: ID
    height: Annotated[int, U64]
    epoch: Annotated[int, U32]
    parent_ids: Annotated[tuple[bytes, ...], ListOf(ID32, "parent IDs")]
    transactions: Annotated[tuple[bytes, ...], ListOf(VAR_BYTES, "vertex txs")]


@struct
class StopVertex(Struct):
    """Codec version 1 vertex that ended the DAG at Cortina: no epoch, no txs."""

    chain_id: ID
    height: Annotated[int, U64]
    parent_ids: Annotated[tuple[bytes, ...], ListOf(ID32, "parent IDs")]


XCHAIN_TABLE = TypeTable(
    "avm",
    type_ids.bind(
        "avm",
        type_ids.XCHAIN,
        {
            "BaseTx": BaseTx,
            "CreateAssetTx": CreateAssetTx,
            "OperationTx": OperationTx,
            "ImportTx": ImportTx,
            "ExportTx": ExportTx,
            "StandardBlock": StandardBlock,
            **{
                k: v
                for k, v in components.SECP256K1FX_CLASSES.items()
                if k in type_ids.XCHAIN_SECP256K1FX.values()
            },
            **FX_CLASSES,
        },
    ),
)
