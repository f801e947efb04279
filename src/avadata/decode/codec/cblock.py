"""C-chain (coreth) blocks: where the atomic txs sit inside the RLP block bytes.

Block RLP = [header, transactions, uncles, version (uint), extData (byte string)]. The header
has the 15 Ethereum fields, then ExtDataHash, then optional fields by upgrade (BaseFee from
AP3, ExtDataGasUsed/BlockGasCost from AP4, blob fields from Cancun/Etna, Granite's time in ms).
Block hash = keccak256(RLP(header)). We keep the RLP items raw so re-encoding is exact.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import rlp
from eth_hash.auto import keccak

from avadata.decode.codec.api import decode_ext_data
from avadata.decode.codec.atomic import AtomicTx
from avadata.decode.codec.reader import DecodeError

HEADER_FIELDS = (
    "parentHash",
    "sha3Uncles",
    "miner",
    "stateRoot",
    "transactionsRoot",
    "receiptsRoot",
    "logsBloom",
    "difficulty",
    "number",
    "gasLimit",
    "gasUsed",
    "timestamp",
    "extraData",
    "mixHash",
    "nonce",
    "extDataHash",
    "baseFeePerGas",
    "extDataGasUsed",
    "blockGasCost",
    "blobGasUsed",
    "excessBlobGas",
    "parentBeaconBlockRoot",
    "timestampMilliseconds",
    "minDelayExcess",
)
_INT_FIELDS = {
    "difficulty",
    "number",
    "gasLimit",
    "gasUsed",
    "timestamp",
    "baseFeePerGas",
    "extDataGasUsed",
    "blockGasCost",
    "blobGasUsed",
    "excessBlobGas",
    "timestampMilliseconds",
    "minDelayExcess",
}


@dataclasses.dataclass(frozen=True, slots=True)
class CChainBlock:
    header: tuple[bytes, ...]
    transactions: tuple[Any, ...]  # raw RLP items: a list (legacy) or bytes (typed tx)
    uncles: tuple[Any, ...]
    version: int
    ext_data: bytes
    atomic_txs: tuple[AtomicTx, ...]

    @property
    def block_hash(self) -> bytes:
        return bytes(keccak(rlp.encode(list(self.header))))

    @property
    def ext_data_hash(self) -> bytes:
        """What the header's ExtDataHash must equal: keccak256(RLP(extData as a string))."""
        return bytes(keccak(rlp.encode(self.ext_data)))

    def header_dict(self) -> dict[str, str | int]:
        out: dict[str, str | int] = {}
        for name, raw in zip(HEADER_FIELDS, self.header, strict=False):
            out[name] = int.from_bytes(raw, "big") if name in _INT_FIELDS else "0x" + raw.hex()
        return out


def decode_cchain_block(data: bytes, ap5: bool | None = None) -> CChainBlock:
    try:
        items = rlp.decode(data, strict=True)
    except (rlp.exceptions.DecodingError, rlp.exceptions.DeserializationError) as e:
        raise DecodeError(0, f"a coreth block RLP ({e})") from None
    except RecursionError:  # lists nested thousands deep
        raise DecodeError(0, "a coreth block RLP nested less deeply") from None
    if not isinstance(items, list) or len(items) != 5:
        raise DecodeError(0, "an RLP list of 5: header, txs, uncles, version, extData")
    header, txs, uncles, version, ext = items
    if (
        not isinstance(header, list)
        or len(header) < 16
        or not all(isinstance(h, bytes) for h in header)
    ):
        raise DecodeError(0, "a header RLP list of at least 16 byte strings")
    if not isinstance(txs, list) or not isinstance(uncles, list):
        raise DecodeError(0, "RLP lists of transactions and uncles")
    if not isinstance(version, bytes) or not isinstance(ext, bytes):
        raise DecodeError(0, "version and extData as RLP byte strings")
    return CChainBlock(
        header=tuple(header),
        transactions=tuple(txs),
        uncles=tuple(uncles),
        version=int.from_bytes(version, "big"),
        ext_data=ext,
        atomic_txs=tuple(decode_ext_data(ext, ap5)),
    )


def encode_cchain_block(block: CChainBlock) -> bytes:
    version = block.version.to_bytes((block.version.bit_length() + 7) // 8, "big")
    return bytes(
        rlp.encode(
            [
                list(block.header),
                list(block.transactions),
                list(block.uncles),
                version,
                block.ext_data,
            ]
        )
    )
