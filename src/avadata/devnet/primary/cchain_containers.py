"""C-chain Index API containers built from the devnet's C-chain anvil.

Stage: devnet. For every block anvil mined (1, 2, ...), the container the avalanchego indexer
would store: a proposervm statelessBlock wrapping the coreth block RLP
[header, transactions, uncles, version 0, extData], where the header is anvil's 15 Ethereum
fields plus coreth's ExtDataHash (keccak256 of the RLP of extData), BaseFee, ExtDataGasUsed,
BlockGasCost, the Cancun blob fields and Granite's TimeMilliseconds and MinDelayExcess;
transactions are anvil's raw signed transactions; extData holds the simulators' atomic txs
for that block (post-ApricotPhase5 list form), or nothing.

So the header hash differs from anvil's block hash (coreth's header has more fields); the
header's number, timestamp, parentHash and roots are anvil's, and the container ID is the
proposervm block ID, as on a real post-fork C-chain.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import rlp
from eth_hash.auto import keccak

from avadata.decode.codec import api
from avadata.decode.codec.atomic import ATOMIC_TABLE, AtomicTx
from avadata.devnet.primary.containers import C_BLOCK, Container, ProposerChain
from avadata.devnet.rpc import Rpc

ATOMIC_INTRINSIC_GAS = 10_000  # coreth AtomicTxIntrinsicGas
GAS_PER_SIGNATURE = 1_000  # secp256k1fx.CostPerSignature
FETCH_BATCH = 200


def _int(value: str | None) -> bytes:
    n = int(value or "0x0", 16)
    return n.to_bytes((n.bit_length() + 7) // 8, "big")


def _data(value: str | None) -> bytes:
    return bytes.fromhex((value or "0x")[2:])


def atomic_gas(txs: Sequence[AtomicTx]) -> int:
    gas = 0
    for tx in txs:
        sigs = sum(len(getattr(c, "signatures", ())) for c in tx.credentials)
        gas += len(tx.signed_bytes(ATOMIC_TABLE)) + GAS_PER_SIGNATURE * sigs + ATOMIC_INTRINSIC_GAS
    return gas


def coreth_block(
    block: dict[str, Any], raw_txs: Sequence[bytes], atomic: Sequence[AtomicTx]
) -> bytes:
    """The coreth RLP of anvil's `block` (eth_getBlockByNumber JSON) with `atomic` in extData."""
    ext_data = api.encode_ext_data(list(atomic)) if atomic else b""
    ext_hash = bytes(keccak(rlp.encode(ext_data)))
    header = [
        _data(block["parentHash"]),
        _data(block["sha3Uncles"]),
        _data(block["miner"]),
        _data(block["stateRoot"]),
        _data(block["transactionsRoot"]),
        _data(block["receiptsRoot"]),
        _data(block["logsBloom"]),
        _int(block.get("difficulty")),
        _int(block["number"]),
        _int(block["gasLimit"]),
        _int(block["gasUsed"]),
        _int(block["timestamp"]),
        _data(block.get("extraData")),
        _data(block.get("mixHash") or "0x" + "00" * 32),
        _data(block.get("nonce") or "0x" + "00" * 8),
        ext_hash,
        _int(block.get("baseFeePerGas")),
        _int(hex(atomic_gas(atomic))),
        b"",  # BlockGasCost 0
        _int(block.get("blobGasUsed")),
        _int(block.get("excessBlobGas")),
        _data(block.get("parentBeaconBlockRoot") or "0x" + "00" * 32),
        _int(hex(int(block["timestamp"], 16) * 1000)),  # TimeMilliseconds
        b"",  # MinDelayExcess 0
    ]
    txs: list[Any] = [rlp.decode(raw) if raw[0] >= 0xC0 else raw for raw in raw_txs]
    return bytes(rlp.encode([header, txs, [], b"", ext_data]))


def fetch_blocks(rpc: Rpc, first: int, last: int) -> list[tuple[dict[str, Any], list[bytes]]]:
    """Blocks first..last (inclusive) with their raw transactions, in order."""
    out: list[tuple[dict[str, Any], list[bytes]]] = []
    for lo in range(first, last + 1, FETCH_BATCH):
        hi = min(last, lo + FETCH_BATCH - 1)
        blocks = rpc.batch([("eth_getBlockByNumber", [hex(n), False]) for n in range(lo, hi + 1)])
        hashes = [h for b in blocks for h in b["transactions"]]
        raws: list[str] = []
        for i in range(0, len(hashes), 1000):
            chunk = hashes[i : i + 1000]
            raws += rpc.batch([("eth_getRawTransactionByHash", [h]) for h in chunk])
        at = 0
        for b in blocks:
            n = len(b["transactions"])
            out.append((b, [bytes.fromhex(r[2:]) for r in raws[at : at + n]]))
            at += n
    return out


class CContainers:
    """The C-chain's proposervm chain of containers; `parent` starts at anvil's genesis hash
    (the last pre-fork block)."""

    def __init__(self, genesis_hash: bytes) -> None:
        self.proposer = ProposerChain(parent=genesis_hash)
        self.last_number = 0

    def build(
        self,
        block: dict[str, Any],
        raw_txs: Sequence[bytes],
        atomic: Sequence[AtomicTx],
        accepted_ns: int,
        p_height: int,
    ) -> Container:
        number = int(block["number"], 16)
        if number != self.last_number + 1:
            raise ValueError(f"C-chain block {number} after {self.last_number}")
        t = int(block["timestamp"], 16)
        container_id, raw = self.proposer.wrap(coreth_block(block, raw_txs, atomic), t, p_height)
        self.last_number = number
        return Container(C_BLOCK, container_id, raw, accepted_ns, t)
