"""Building blocks of signed P/X/C-atomic transactions: outputs, inputs, coin selection, signing.

Stage: devnet (P/X simulators). Builds codec objects (`avadata.decode.codec`) only; the
simulators decide what to send.

Canonical forms a node checks, kept here: outputs sorted by their encoded bytes, inputs by
(tx ID, output index), one credential per input in input order, then one per auth field
(subnetAuth, disableAuth) or per X-chain operation; each credential holds one signature per
sig index, over sha256(codec version + unsigned tx with its type ID).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from avadata.decode.codec import api
from avadata.decode.codec.atomic import ATOMIC_TABLE, AtomicTx
from avadata.decode.codec.components import (
    Credential,
    Input,
    OutputOwners,
    TransferableInput,
    TransferableOutput,
    TransferInput,
    TransferOutput,
)
from avadata.decode.codec.fields import Inline, TypeTable
from avadata.decode.codec.pchain import PChainTx
from avadata.decode.codec.pchain_blocks import PCHAIN_TABLE
from avadata.decode.codec.signed import with_raw
from avadata.decode.codec.writer import Writer
from avadata.decode.codec.xchain import XCHAIN_TABLE, XChainTx
from avadata.devnet.primary.keys import SecpKey
from avadata.devnet.primary.utxo_book import Coin, UtxoBook

_OUTPUT = Inline(TransferableOutput)


def owners(address: bytes) -> OutputOwners:
    return OutputOwners(0, 1, (address,))


def transfer(asset: bytes, amount: int, address: bytes) -> TransferableOutput:
    return TransferableOutput(asset, TransferOutput(amount, 0, 1, (address,)))


def sort_outputs(outs: Sequence[TransferableOutput], table: TypeTable) -> tuple[Any, ...]:
    """avax.SortTransferableOutputs: by the codec bytes of each output."""

    def key(out: TransferableOutput) -> bytes:
        w = Writer()
        _OUTPUT.write(w, table, out)
        return w.getvalue()

    return tuple(sorted(outs, key=key))


def input_for(coin: Coin) -> TransferableInput:
    """Spend a single-owner TransferOutput coin (sig index 0)."""
    return TransferableInput(coin.tx_id, coin.index, coin.asset, TransferInput(coin.amount, (0,)))


@dataclass
class Spend:
    """Inputs (sorted) with the keys that sign each, and the change outputs."""

    inputs: list[TransferableInput] = field(default_factory=list)
    signers: list[list[SecpKey]] = field(default_factory=list)
    change: list[TransferableOutput] = field(default_factory=list)
    coins: list[Coin] = field(default_factory=list)

    def add(self, coin: Coin, key: SecpKey) -> None:
        self.inputs.append(input_for(coin))
        self.signers.append([key])
        self.coins.append(coin)

    def sorted(self) -> Spend:
        order = sorted(range(len(self.inputs)), key=lambda i: self._key(i))
        return Spend(
            [self.inputs[i] for i in order],
            [self.signers[i] for i in order],
            self.change,
            [self.coins[i] for i in order],
        )

    def _key(self, i: int) -> tuple[bytes, int]:
        return self.inputs[i].tx_id, self.inputs[i].output_index


class InsufficientFunds(Exception):
    """The payer cannot cover the amounts asked (the simulator then picks another action)."""


def select(
    book: UtxoBook, key: SecpKey, needs: dict[bytes, int], change_to: bytes | None = None
) -> Spend:
    """Coins of `key` covering `needs` (asset -> amount, fee included), oldest first, with
    change back to `change_to` (default: the payer). Raises InsufficientFunds."""
    spend = Spend()
    for asset, amount in needs.items():
        if amount <= 0:
            continue
        got = 0
        for coin in book.owned(key.address, asset, TransferOutput):
            if coin.output.locktime or coin.output.threshold != 1 or len(coin.owners) != 1:
                continue
            spend.add(coin, key)
            got += coin.amount
            if got >= amount:
                break
        if got < amount:
            raise InsufficientFunds(f"{key.address.hex()} has {got} of {amount}")
        if got > amount:
            spend.change.append(transfer(asset, got - amount, change_to or key.address))
    return spend.sorted()


def credential(message: bytes, keys: Sequence[SecpKey]) -> Credential:
    return Credential(tuple(k.sign(message) for k in keys))


def sign_p(unsigned: Any, signers: Sequence[Sequence[SecpKey]]) -> PChainTx:
    message = api.encode_p_unsigned_tx(unsigned)
    tx = PChainTx(unsigned, tuple(credential(message, keys) for keys in signers))
    signed: PChainTx = with_raw(tx, api.encode_p_tx(tx))
    return signed


def sign_x(
    unsigned: Any, signers: Sequence[Sequence[SecpKey]], extra_credentials: Sequence[Any] = ()
) -> XChainTx:
    """`extra_credentials`: (credential class, keys) per operation, after the inputs'."""
    message = api.encode_x_unsigned_tx(unsigned)
    creds: list[Any] = [credential(message, keys) for keys in signers]
    for cls, keys in extra_credentials:
        creds.append(cls(tuple(k.sign(message) for k in keys)))
    tx = XChainTx(unsigned, tuple(creds))
    signed: XChainTx = with_raw(tx, api.encode_x_tx(tx))
    return signed


def sign_atomic(unsigned: Any, signers: Sequence[Sequence[SecpKey]]) -> AtomicTx:
    message = api.encode_atomic_unsigned_tx(unsigned)
    tx = AtomicTx(unsigned, tuple(credential(message, keys) for keys in signers))
    signed: AtomicTx = with_raw(tx, api.encode_atomic_tx(tx))
    return signed


def auth(indices: Sequence[int] = (0,)) -> Input:
    """A subnetAuth/disableAuth: sig indices into the owner's addresses."""
    return Input(tuple(indices))


TABLES = {"P": PCHAIN_TABLE, "X": XCHAIN_TABLE, "C": ATOMIC_TABLE}
