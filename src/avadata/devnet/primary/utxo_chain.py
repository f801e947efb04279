"""What the UTXO chains' simulators share: a UTXO book, base txs paid from it, atomic transfers.

Stage: devnet (P/X simulators). `UtxoChainSim` is the base of `pchain_sim.PChainSim` and
`xchain_sim.XChainSim`: each describes its chain (`UtxoChain`: ID, letter, codec table,
ImportTx / ExportTx classes, fee) and says how it signs and tells the time; the base builds and
applies what both chains do the same way (base txs, exports into shared memory, imports out of
it, tx records).
`importable_avax` is also the C-chain's (cchain_atomic.py) first step of an import.

Rules kept (avalanchego avax.BaseTx / ImportTx / ExportTx): base outputs are sorted by their
bytes and get indices 0..n-1; exported outputs get indices after the base outputs; an import
spends every importable AVAX coin of the user, sorted by (tx ID, output index), and pays the
rest minus the fee to the user; the imported coins leave shared memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from avadata.decode.codec.components import (
    AvaxBaseTx,
    TransferableInput,
    TransferableOutput,
    TransferInput,
    TransferOutput,
)
from avadata.decode.codec.fields import TypeTable
from avadata.decode.codec.signed import SignedTx
from avadata.devnet.primary.containers import TxRecord, id_str
from avadata.devnet.primary.keys import Keyring, SecpKey
from avadata.devnet.primary.network_ids import AVAX_ASSET_ID, NETWORK_ID
from avadata.devnet.primary.txkit import InsufficientFunds, Spend, select, sort_outputs, transfer
from avadata.devnet.primary.utxo_book import Coin, SharedMemory, UtxoBook

TxT = TypeVar("TxT", bound=SignedTx)


class Skip(Exception):
    """The action cannot be taken in the current state; the driver picks another one."""


def importable_avax(
    shared: SharedMemory, chain_id: bytes, user: SecpKey, t: int, source: bytes, fee: int
) -> tuple[list[Coin], tuple[TransferableInput, ...], int]:
    """The AVAX coins `user` can import from `source` into `chain_id` at time t, in input order,
    the inputs spending them and their total. Skip when they do not pay more than `fee`."""
    coins = [
        c for c in shared.importable(chain_id, user.address, t, source) if c.asset == AVAX_ASSET_ID
    ]
    total = sum(c.amount for c in coins)
    if not coins or total <= fee:
        raise Skip("nothing to import")
    coins.sort(key=lambda c: (c.tx_id, c.index))
    imported = tuple(
        TransferableInput(c.tx_id, c.index, c.asset, TransferInput(c.amount, (0,))) for c in coins
    )
    return coins, imported, total


@dataclass(frozen=True)
class UtxoChain:
    """What the shared behaviour needs to know of one UTXO chain."""

    chain_id: bytes
    letter: str  # "P" or "X", as TxRecord names the chain
    table: TypeTable
    import_tx: type  # the chain's ImportTx and ExportTx codec classes
    export_tx: type
    fee: int  # what an export or an import burns


class UtxoChainSim(Generic[TxT]):
    CHAIN: ClassVar[UtxoChain]

    def __init__(
        self, seed: int, keys: Keyring, shared: SharedMemory, records: list[TxRecord]
    ) -> None:
        self.seed = seed
        self.keys = keys
        self.shared = shared
        self.records = records
        self.utxos = UtxoBook()

    # -- what each chain supplies ---------------------------------------------------------------

    def proposer_of(self, height: int) -> bytes:
        """The certificate of the node proposing the block at `height`: the devnet's nodes
        take turns, so every node proposes."""
        nodes = self.keys.nodes
        return nodes[height % len(nodes)].certificate

    def _now(self) -> int:
        """The chain's time (unix seconds): what shared memory stamps and reads coins at."""
        raise NotImplementedError

    def _sign(self, unsigned: Any, signers: Sequence[Sequence[SecpKey]]) -> TxT:
        raise NotImplementedError

    # -- plumbing -------------------------------------------------------------------------------

    def _genesis_coins(self, tx_id: bytes, allocations: Sequence[tuple[bytes, int]]) -> None:
        for i, (address, amount) in enumerate(allocations):
            self.utxos.add(Coin(tx_id, i, AVAX_ASSET_ID, TransferOutput(amount, 0, 1, (address,))))

    def _record(self, tx: TxT, index: str, height: int, t: int) -> None:
        kind = type(tx.unsigned).__name__
        tx_id = id_str(tx.id_bytes(self.CHAIN.table))
        self.records.append(TxRecord(tx_id, self.CHAIN.letter, kind, index, height, t))

    def _base(
        self, spend: Spend, outs: Sequence[TransferableOutput] = (), memo: bytes = b""
    ) -> AvaxBaseTx:
        return AvaxBaseTx(
            NETWORK_ID,
            self.CHAIN.chain_id,
            sort_outputs([*outs, *spend.change], self.CHAIN.table),
            tuple(spend.inputs),
            memo,
        )

    def _select(self, payer: SecpKey, needs: dict[bytes, int]) -> Spend:
        try:
            return select(self.utxos, payer, needs)
        except InsufficientFunds as exc:
            raise Skip(str(exc)) from None

    def _pay_from(self, payer: SecpKey, amount: int) -> Spend:
        return self._select(payer, {AVAX_ASSET_ID: amount})

    def _add_outputs(self, tx_id: bytes, outputs: Sequence[TransferableOutput]) -> None:
        for i, out in enumerate(outputs):
            self.utxos.add(Coin(tx_id, i, out.asset_id, out.output))

    def _apply_base(self, tx: TxT, spend: Spend) -> bytes:
        """Spend the inputs, add the base outputs; returns the tx ID."""
        tx_id = tx.id_bytes(self.CHAIN.table)
        for coin in spend.coins:
            self.utxos.spend(coin.tx_id, coin.index)
        base: AvaxBaseTx = tx.unsigned.base
        self._add_outputs(tx_id, base.outputs)
        return tx_id

    # -- atomic txs -----------------------------------------------------------------------------

    def export(self, sender: SecpKey, destination: bytes, recipient: bytes, amount: int) -> TxT:
        chain = self.CHAIN
        spend = self._pay_from(sender, amount + chain.fee)
        exported = (transfer(AVAX_ASSET_ID, amount, recipient),)
        unsigned = chain.export_tx(self._base(spend), destination, exported)
        tx = self._sign(unsigned, spend.signers)
        tx_id = self._apply_base(tx, spend)
        first = len(unsigned.base.outputs)
        for i, out in enumerate(exported):
            coin = Coin(tx_id, first + i, out.asset_id, out.output)
            self.shared.put(destination, chain.chain_id, coin, self._now())
        return tx

    def import_(self, user: SecpKey, source: bytes) -> TxT:
        chain = self.CHAIN
        coins, imported, total = importable_avax(
            self.shared, chain.chain_id, user, self._now(), source, chain.fee
        )
        outs = (transfer(AVAX_ASSET_ID, total - chain.fee, user.address),)
        base = AvaxBaseTx(NETWORK_ID, chain.chain_id, sort_outputs(outs, chain.table), (), b"")
        unsigned = chain.import_tx(base, source, imported)
        tx = self._sign(unsigned, [[user] for _ in imported])
        tx_id = tx.id_bytes(chain.table)
        for c in coins:
            self.shared.take(chain.chain_id, c)
        self._add_outputs(tx_id, base.outputs)
        return tx
