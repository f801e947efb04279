"""The C-chain's side of atomic transfers: coreth ImportTx / ExportTx, signed.

Stage: devnet. The devnet's C-chain EVM is anvil, which knows nothing of shared memory, so
these txs live only in the C-chain block containers of the Index API (in each coreth block's
ExtData) and in this module's own account of the nAVAX they move to and from EVM addresses
(`balances`, `nonces`); anvil balances do not change. Rules kept from coreth: an import
credits EVMOutputs (fee = imported - credited); an export debits an EVMInput carrying the
account's atomic nonce, signed by the key of that EVM address; exported outputs get indices
0..n-1 (there are no base outputs).
"""

from __future__ import annotations

from avadata.decode.codec.atomic import (
    ATOMIC_TABLE,
    AtomicTx,
    EVMInput,
    EVMOutput,
    UnsignedExportTx,
    UnsignedImportTx,
)
from avadata.devnet.primary.containers import C_BLOCK, TxRecord, id_str
from avadata.devnet.primary.keys import SecpKey
from avadata.devnet.primary.network_ids import AVAX_ASSET_ID, C_CHAIN_ID, NETWORK_ID
from avadata.devnet.primary.txkit import sign_atomic, sort_outputs, transfer
from avadata.devnet.primary.utxo_book import Coin, SharedMemory
from avadata.devnet.primary.utxo_chain import Skip, importable_avax

FEE = 1_000_000  # nAVAX; coreth's atomic fee is dynamic, the devnet burns a flat one


class CChainAtomic:
    def __init__(self, shared: SharedMemory, records: list[TxRecord]) -> None:
        self.shared = shared
        self.records = records
        self.balances: dict[str, int] = {}  # EVM address -> nAVAX credited by imports
        self.nonces: dict[str, int] = {}

    def record(self, tx: AtomicTx, block: int, t: int) -> None:
        kind = "ImportTx" if isinstance(tx.unsigned, UnsignedImportTx) else "ExportTx"
        self.records.append(
            TxRecord(id_str(tx.id_bytes(ATOMIC_TABLE)), "C", kind, C_BLOCK, block, t)
        )

    def import_(self, user: SecpKey, source: bytes, t: int) -> AtomicTx:
        coins, imported, total = importable_avax(self.shared, C_CHAIN_ID, user, t, source, FEE)
        address = bytes.fromhex(user.eth_address[2:])
        outs = (EVMOutput(address, total - FEE, AVAX_ASSET_ID),)
        unsigned = UnsignedImportTx(NETWORK_ID, C_CHAIN_ID, source, imported, outs)
        tx = sign_atomic(unsigned, [[user] for _ in imported])
        for c in coins:
            self.shared.take(C_CHAIN_ID, c)
        self.balances[user.eth_address] = self.balances.get(user.eth_address, 0) + total - FEE
        return tx

    def export(self, user: SecpKey, destination: bytes, amount: int, t: int) -> AtomicTx:
        have = self.balances.get(user.eth_address, 0)
        if have < amount + FEE or amount <= 0:
            raise Skip("not enough imported AVAX on the C-chain")
        nonce = self.nonces.get(user.eth_address, 0)
        address = bytes.fromhex(user.eth_address[2:])
        ins = (EVMInput(address, amount + FEE, AVAX_ASSET_ID, nonce),)
        exported = sort_outputs([transfer(AVAX_ASSET_ID, amount, user.address)], ATOMIC_TABLE)
        unsigned = UnsignedExportTx(NETWORK_ID, C_CHAIN_ID, destination, ins, exported)
        tx = sign_atomic(unsigned, [[user]])
        tx_id = tx.id_bytes(ATOMIC_TABLE)
        for i, out in enumerate(exported):
            self.shared.put(destination, C_CHAIN_ID, Coin(tx_id, i, out.asset_id, out.output), t)
        self.balances[user.eth_address] = have - amount - FEE
        self.nonces[user.eth_address] = nonce + 1
        return tx
