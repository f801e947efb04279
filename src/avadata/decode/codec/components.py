"""Pieces shared by the P-chain, X-chain and C-chain atomic codecs.

`vms/components/avax` (BaseTx, transferable inputs/outputs, UTXO), `vms/secp256k1fx`
(owners, transfer/mint outputs, inputs, credentials), `vms/platformvm/stakeable` (locks) and
`vms/platformvm/signer`. Role base classes stand for the Go interfaces: an interface field
accepts exactly the registered types that subclass its role.
"""

from __future__ import annotations

from typing import Annotated

from avadata.decode.codec.fields import (
    BLS_PUBKEY,
    BLS_SIG,
    ID32,
    SHORT_ID,
    SIG65,
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

# --- roles (Go interfaces) ---------------------------------------------------------------


class TransferableOut(Struct):
    """avax.TransferableOut: an output with an amount (TransferOutput, stakeable.LockOut)."""

    __slots__ = ()


class TransferableIn(Struct):
    """avax.TransferableIn: an input with an amount (TransferInput, stakeable.LockIn)."""

    __slots__ = ()


class FxState(Struct):
    """verify.State: anything a UTXO or an X-chain initial state can hold."""

    __slots__ = ()


class Owner(Struct):
    """fx.Owner: the owner of a subnet or of rewards (OutputOwners in practice)."""

    __slots__ = ()


class Auth(Struct):
    """verify.Verifiable auth fields (subnetAuth, disableAuth): an Input in practice."""

    __slots__ = ()


class FxCredential(Struct):
    __slots__ = ()


class FxOperation(Struct):
    __slots__ = ()


class Signer(Struct):
    """signer.Signer of AddPermissionlessValidatorTx: Empty or ProofOfPossession."""

    __slots__ = ()


Addresses = Annotated[tuple[bytes, ...], ListOf(SHORT_ID, "addresses"), JsonName("addresses")]
SigIndices = Annotated[tuple[int, ...], ListOf(U32, "sigIndices"), JsonName("signatureIndices")]

# --- secp256k1fx ---------------------------------------------------------------------------


@struct
class OutputOwners(Owner):
    locktime: Annotated[int, U64]
    threshold: Annotated[int, U32]
    addresses: Addresses


@struct
class TransferOutput(TransferableOut, FxState):
    amount: Annotated[int, U64]
    locktime: Annotated[int, U64]
    threshold: Annotated[int, U32]
    addresses: Addresses


@struct
class MintOutput(FxState):
    locktime: Annotated[int, U64]
    threshold: Annotated[int, U32]
    addresses: Addresses


@struct
class Input(Auth):
    sig_indices: SigIndices


@struct
class TransferInput(TransferableIn):
    amount: Annotated[int, U64]
    sig_indices: SigIndices


@struct
class MintOperation(FxOperation):
    mint_input: Annotated[Input, Inline(Input)]
    mint_output: Annotated[MintOutput, Inline(MintOutput)]
    transfer_output: Annotated[TransferOutput, Inline(TransferOutput)]


@struct
class Credential(FxCredential):
    signatures: Annotated[tuple[bytes, ...], ListOf(SIG65, "signatures")]


# --- stakeable (P-chain) ---------------------------------------------------------------------


@struct
class LockIn(TransferableIn):
    locktime: Annotated[int, U64]
    input: Annotated[TransferableIn, Iface(TransferableIn)]


@struct
class LockOut(TransferableOut, FxState):
    locktime: Annotated[int, U64]
    output: Annotated[TransferableOut, Iface(TransferableOut)]


# --- signer (P-chain) ------------------------------------------------------------------------


@struct
class EmptySigner(Signer):
    pass


@struct
class ProofOfPossession(Signer):
    public_key: Annotated[bytes, BLS_PUBKEY]
    proof_of_possession: Annotated[bytes, BLS_SIG]


@struct
class PChainOwner(Struct):
    """Etna owner without a locktime (L1 validator balance / deactivation owners)."""

    threshold: Annotated[int, U32]
    addresses: Addresses


# --- avax ------------------------------------------------------------------------------------


@struct
class TransferableOutput(Struct):
    asset_id: Annotated[bytes, ID32]
    output: Annotated[TransferableOut, Iface(TransferableOut)]


@struct
class TransferableInput(Struct):
    tx_id: Annotated[bytes, ID32]
    output_index: Annotated[int, U32]
    asset_id: Annotated[bytes, ID32]
    input: Annotated[TransferableIn, Iface(TransferableIn)]


@struct
class UTXO(Struct):
    tx_id: Annotated[bytes, ID32]
    output_index: Annotated[int, U32]
    asset_id: Annotated[bytes, ID32]
    output: Annotated[FxState, Iface(FxState)]


Outputs = Annotated[tuple[TransferableOutput, ...], ListOf(Inline(TransferableOutput), "outputs")]
Inputs = Annotated[tuple[TransferableInput, ...], ListOf(Inline(TransferableInput), "inputs")]


@struct
class AvaxBaseTx(Struct):
    network_id: Annotated[int, U32]
    blockchain_id: Annotated[bytes, ID32]
    outputs: Outputs
    inputs: Inputs
    memo: Annotated[bytes, VAR_BYTES]


BaseFields = Annotated[AvaxBaseTx, Inline(AvaxBaseTx)]

# The secp256k1fx classes every VM registers under the same names in type_ids.py.
SECP256K1FX_CLASSES: dict[str, type] = {
    "secp256k1fx.TransferInput": TransferInput,
    "secp256k1fx.MintOutput": MintOutput,
    "secp256k1fx.TransferOutput": TransferOutput,
    "secp256k1fx.MintOperation": MintOperation,
    "secp256k1fx.Credential": Credential,
    "secp256k1fx.Input": Input,
    "secp256k1fx.OutputOwners": OutputOwners,
}
