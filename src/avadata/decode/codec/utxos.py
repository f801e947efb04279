"""Which UTXOs a decoded tx consumes and creates, with the output indices avalanchego gives them.

Rules (avalanchego 1cf1fc3d):
* P and X: the base tx's outputs get indices 0..n-1 on the tx's own chain
  (`vms/avm/txs/utxo_getter.go`, platformvm `utxo.Produce`).
* ExportTx (P and X): exported outputs go to the destination chain's shared memory with
  indices len(Outs)+i (`ExportTx.AtomicOperations` / the wallet backends).
* C-chain UnsignedExportTx (coreth): no base outputs, exported outputs get indices i.
* X CreateAssetTx: after the base outputs, every initial-state output in order, with the new
  asset's ID = the tx ID. X OperationTx: after the base outputs, each operation's `Outs()`
  in order (secp256k1fx/propertyfx mint: mint output then transfer/owned output; nftfx mint:
  one TransferOutput per owner with the op's group ID and payload; nftfx transfer: its
  output; propertyfx burn: none).
* Consumed: the base inputs and ImportTx's imported inputs (the latter from the source
  chain's shared memory), and X operations' UTXO IDs.
Staking outputs return to their owners only when the staker leaves (RewardValidatorTx); that
needs chain state and is not derived here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from avadata.decode.codec.atomic import UnsignedExportTx, UnsignedImportTx
from avadata.decode.codec.components import UTXO, FxState
from avadata.decode.codec.ids import utxo_id
from avadata.decode.codec.xchain import CreateAssetTx, OperationTx
from avadata.decode.codec.xchain_fx import (
    NftMintOperation,
    NftTransferOperation,
    NftTransferOutput,
    PropertyBurnOperation,
    PropertyMintOperation,
)


@dataclass(frozen=True, slots=True)
class UtxoRef:
    """A consumed UTXO: the tx that created it and its output index."""

    tx_id: bytes
    output_index: int
    asset_id: bytes
    imported: bool  # True = taken from another chain's shared memory

    @property
    def utxo_id(self) -> bytes:
        return utxo_id(self.tx_id, self.output_index)


def consumed(unsigned: Any) -> list[UtxoRef]:
    base = getattr(unsigned, "base", None)
    refs = [
        UtxoRef(i.tx_id, i.output_index, i.asset_id, False) for i in getattr(base, "inputs", ())
    ]
    imported = getattr(unsigned, "imported_inputs", ())
    refs += [UtxoRef(i.tx_id, i.output_index, i.asset_id, True) for i in imported]
    if isinstance(unsigned, OperationTx):
        for op in unsigned.operations:
            refs += [UtxoRef(u.tx_id, u.output_index, op.asset_id, False) for u in op.utxo_ids]
    return refs


def _op_outs(op: Any) -> list[FxState]:
    if isinstance(op, NftMintOperation):
        return [
            NftTransferOutput(op.group_id, op.payload, o.locktime, o.threshold, o.addresses)
            for o in op.outputs
        ]
    if isinstance(op, NftTransferOperation):
        return [op.output]
    if isinstance(op, PropertyMintOperation):
        return [op.mint_output, op.owned_output]
    if isinstance(op, PropertyBurnOperation):
        return []
    return [op.mint_output, op.transfer_output]  # secp256k1fx.MintOperation


def produced(unsigned: Any, tx_id: bytes) -> list[UTXO]:
    """UTXOs the tx creates on its own chain (C-chain atomic txs create none there)."""
    if isinstance(unsigned, (UnsignedImportTx, UnsignedExportTx)):
        return []
    base = getattr(unsigned, "base", None)
    utxos = [
        UTXO(tx_id, i, o.asset_id, o.output) for i, o in enumerate(getattr(base, "outputs", ()))
    ]
    if isinstance(unsigned, CreateAssetTx):
        for state in unsigned.initial_states:
            for out in state.outputs:
                utxos.append(UTXO(tx_id, len(utxos), tx_id, out))
    elif isinstance(unsigned, OperationTx):
        for op in unsigned.operations:
            for out in _op_outs(op.operation):
                utxos.append(UTXO(tx_id, len(utxos), op.asset_id, out))
    return utxos


def exported(unsigned: Any, tx_id: bytes) -> list[UTXO]:
    """UTXOs an export puts into the destination chain's shared memory."""
    outs = getattr(unsigned, "exported_outputs", None)
    if outs is None:
        return []
    first = 0 if isinstance(unsigned, UnsignedExportTx) else len(unsigned.base.outputs)
    return [UTXO(tx_id, first + i, o.asset_id, o.output) for i, o in enumerate(outs)]


__all__ = ["UtxoRef", "consumed", "exported", "produced"]
