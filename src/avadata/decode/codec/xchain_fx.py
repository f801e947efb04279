"""nftfx and propertyfx types (X-chain only); secp256k1fx lives in components.py."""

from __future__ import annotations

from typing import Annotated

from avadata.decode.codec.components import (
    Addresses,
    FxCredential,
    FxOperation,
    FxState,
    Input,
    MintOutput,
    OutputOwners,
)
from avadata.decode.codec.fields import SIG65, U32, U64, VAR_BYTES, Inline, ListOf, struct

U32F = Annotated[int, U32]
InputF = Annotated[Input, Inline(Input)]


@struct
class NftMintOutput(FxState):
    group_id: U32F
    locktime: Annotated[int, U64]
    threshold: U32F
    addresses: Addresses


@struct
class NftTransferOutput(FxState):
    group_id: U32F
    payload: Annotated[bytes, VAR_BYTES]
    locktime: Annotated[int, U64]
    threshold: U32F
    addresses: Addresses


@struct
class NftMintOperation(FxOperation):
    mint_input: InputF
    group_id: U32F
    payload: Annotated[bytes, VAR_BYTES]
    outputs: Annotated[tuple[OutputOwners, ...], ListOf(Inline(OutputOwners), "outputs")]


@struct
class NftTransferOperation(FxOperation):
    input: InputF
    output: Annotated[NftTransferOutput, Inline(NftTransferOutput)]


@struct
class NftCredential(FxCredential):
    signatures: Annotated[tuple[bytes, ...], ListOf(SIG65, "signatures")]


@struct
class PropertyMintOutput(FxState):
    locktime: Annotated[int, U64]
    threshold: U32F
    addresses: Addresses


@struct
class PropertyOwnedOutput(FxState):
    locktime: Annotated[int, U64]
    threshold: U32F
    addresses: Addresses


@struct
class PropertyMintOperation(FxOperation):
    mint_input: InputF
    mint_output: Annotated[MintOutput, Inline(MintOutput)]
    owned_output: Annotated[PropertyOwnedOutput, Inline(PropertyOwnedOutput)]


@struct
class PropertyBurnOperation(FxOperation):
    input: InputF


@struct
class PropertyCredential(FxCredential):
    signatures: Annotated[tuple[bytes, ...], ListOf(SIG65, "signatures")]


FX_CLASSES: dict[str, type] = {
    "nftfx.MintOutput": NftMintOutput,
    "nftfx.TransferOutput": NftTransferOutput,
    "nftfx.MintOperation": NftMintOperation,
    "nftfx.TransferOperation": NftTransferOperation,
    "nftfx.Credential": NftCredential,
    "propertyfx.MintOutput": PropertyMintOutput,
    "propertyfx.OwnedOutput": PropertyOwnedOutput,
    "propertyfx.MintOperation": PropertyMintOperation,
    "propertyfx.BurnOperation": PropertyBurnOperation,
    "propertyfx.Credential": PropertyCredential,
}
