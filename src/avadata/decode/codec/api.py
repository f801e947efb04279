"""Top-level decode/encode entry points: version check, size cap, whole input consumed.

Everything a caller needs (the indexer, the CLI, the devnet simulators) goes through here:

    decode_p_tx(data) -> PChainTx            encode_p_tx(tx) -> bytes
    decode_p_unsigned_tx(data) -> PUnsignedTx
    decode_p_block(data) -> PBlock           encode_p_block(block) -> bytes
    decode_x_tx / decode_x_unsigned_tx / decode_x_block / decode_vertex
    decode_atomic_tx / decode_atomic_unsigned_tx / decode_ext_data
    decode_utxo(data, table) ; decode_proposervm(data) ; decode_any_block(chain, data)
"""

from __future__ import annotations

from typing import Any, TypeVar

from avadata.decode.codec.fields import Iface, Inline, Kind, TypeTable, write_struct
from avadata.decode.codec.ids import sha256
from avadata.decode.codec.pchain import PChainTx, PUnsignedTx
from avadata.decode.codec.pchain_blocks import PCHAIN_TABLE, PBlock
from avadata.decode.codec.reader import MAX_BLOCK_SIZE, MAX_TX_SIZE, Reader, check_size
from avadata.decode.codec.writer import Writer

T = TypeVar("T")


def decode_top(
    data: bytes, kind: Kind, table: TypeTable, cap: int | None, what: str, keep_raw: bool = False
) -> Any:
    """Codec version 0, one value of `kind`, then end of input."""
    check_size(data, cap, what)
    r = Reader(data)
    r.version()
    obj = kind.read(r, table)
    r.done()
    if keep_raw:
        object.__setattr__(obj, "raw", r.buf)
    return obj


def encode_top(obj: Any, kind: Kind, table: TypeTable) -> bytes:
    w = Writer()
    w.version(0)
    kind.write(w, table, obj)
    return w.getvalue()


_P_TX = Inline(PChainTx)
_P_UNSIGNED = Iface(PUnsignedTx)
_P_BLOCK = Iface(PBlock)


def decode_p_tx(data: bytes) -> PChainTx:
    tx: PChainTx = decode_top(data, _P_TX, PCHAIN_TABLE, MAX_TX_SIZE, "P-chain tx", True)
    return tx


def encode_p_tx(tx: PChainTx) -> bytes:
    return encode_top(tx, _P_TX, PCHAIN_TABLE)


def decode_p_unsigned_tx(data: bytes) -> PUnsignedTx:
    utx: PUnsignedTx = decode_top(data, _P_UNSIGNED, PCHAIN_TABLE, MAX_TX_SIZE, "P-chain tx")
    return utx


def encode_p_unsigned_tx(utx: PUnsignedTx) -> bytes:
    return encode_top(utx, _P_UNSIGNED, PCHAIN_TABLE)


def decode_p_block(data: bytes) -> PBlock:
    block: PBlock = decode_top(data, _P_BLOCK, PCHAIN_TABLE, MAX_BLOCK_SIZE, "P-chain block")
    return block


def encode_p_block(block: PBlock) -> bytes:
    return encode_top(block, _P_BLOCK, PCHAIN_TABLE)


def block_id(data: bytes) -> bytes:
    """platformvm and avm block IDs, and vertex IDs: sha256 of the full bytes."""
    return sha256(data)


__all__ = [
    "decode_p_block",
    "decode_p_tx",
    "decode_p_unsigned_tx",
    "encode_p_block",
    "encode_p_tx",
    "encode_p_unsigned_tx",
    "write_struct",
]
