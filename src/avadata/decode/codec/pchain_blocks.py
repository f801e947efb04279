"""P-chain blocks (Apricot and Banff) and the P-chain type table that also covers txs.

Banff blocks put `Time` (unix seconds) before the Apricot body; embedded txs carry no codec
version of their own (their IDs are computed with 0x0000 prefixed, see signed.py).
"""

from __future__ import annotations

from typing import Annotated

from avadata.decode.codec import components, pchain, type_ids
from avadata.decode.codec.fields import ListOf, Struct, TypeTable, struct
from avadata.decode.codec.pchain import ID, U64F, PChainTx
from avadata.decode.codec.signed import TxSpan


class PBlock(Struct):
    """Role: any P-chain block."""

    __slots__ = ()


# The P-chain txs' field types: a block's ID, height and time are theirs.
Height = U64F
Time = U64F
OneTx = Annotated[PChainTx, TxSpan(PChainTx)]
Txs = Annotated[tuple[PChainTx, ...], ListOf(TxSpan(PChainTx), "transactions")]


@struct
class ApricotProposalBlock(PBlock):
    parent_id: ID
    height: Height
    tx: OneTx


@struct
class ApricotAbortBlock(PBlock):
    parent_id: ID
    height: Height


@struct
class ApricotCommitBlock(PBlock):
    parent_id: ID
    height: Height


@struct
class ApricotStandardBlock(PBlock):
    parent_id: ID
    height: Height
    transactions: Txs


@struct
class ApricotAtomicBlock(PBlock):
    parent_id: ID
    height: Height
    tx: OneTx


@struct
class BanffProposalBlock(PBlock):
    time: Time
    transactions: Txs  # decision txs executed before the proposal tx; usually empty
    parent_id: ID
    height: Height
    tx: OneTx


@struct
class BanffAbortBlock(PBlock):
    time: Time
    parent_id: ID
    height: Height


@struct
class BanffCommitBlock(PBlock):
    time: Time
    parent_id: ID
    height: Height


@struct
class BanffStandardBlock(PBlock):
    time: Time
    parent_id: ID
    height: Height
    transactions: Txs


BLOCK_CLASSES = type_ids.by_name(
    ApricotProposalBlock,
    ApricotAbortBlock,
    ApricotCommitBlock,
    ApricotStandardBlock,
    ApricotAtomicBlock,
    BanffProposalBlock,
    BanffAbortBlock,
    BanffCommitBlock,
    BanffStandardBlock,
)

PCHAIN_TABLE = TypeTable(
    "platformvm",
    type_ids.bind(
        "platformvm",
        type_ids.PCHAIN,
        {
            **BLOCK_CLASSES,
            **pchain.TX_CLASSES,
            **components.SECP256K1FX_CLASSES,
            "stakeable.LockIn": components.LockIn,
            "stakeable.LockOut": components.LockOut,
            "signer.Empty": components.EmptySigner,
            "signer.ProofOfPossession": components.ProofOfPossession,
        },
    ),
)


def block_txs(block: PBlock) -> tuple[PChainTx, ...]:
    """Every tx a block carries, decision txs first, in execution order."""
    txs: tuple[PChainTx, ...] = getattr(block, "transactions", ())
    one = getattr(block, "tx", None)
    return txs + ((one,) if one is not None else ())
