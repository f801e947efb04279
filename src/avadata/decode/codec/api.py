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

from typing import Any, Generic, TypeVar

from avadata.decode.codec.atomic import ATOMIC_TABLE, AtomicTx, AtomicUnsignedTx
from avadata.decode.codec.components import UTXO
from avadata.decode.codec.fields import Iface, Inline, Kind, ListOf, TypeTable, write_struct
from avadata.decode.codec.ids import sha256
from avadata.decode.codec.pchain import PChainTx, PUnsignedTx
from avadata.decode.codec.pchain_blocks import PCHAIN_TABLE, PBlock
from avadata.decode.codec.reader import (
    MAX_BLOCK_SIZE,
    MAX_TX_SIZE,
    MAX_VERTEX_SIZE,
    DecodeError,
    Reader,
    check_size,
    too_deep,
)
from avadata.decode.codec.signed import TxSpan
from avadata.decode.codec.writer import Writer
from avadata.decode.codec.xchain import (
    XCHAIN_TABLE,
    StopVertex,
    Vertex,
    XBlock,
    XChainTx,
    XUnsignedTx,
)

T = TypeVar("T")


def decode_top(
    data: bytes, kind: Kind, table: TypeTable, cap: int | None, what: str, keep_raw: bool = False
) -> Any:
    """Codec version 0, one value of `kind`, then end of input."""
    check_size(data, cap, what)
    r = Reader(data)
    r.version()
    try:
        obj = kind.read(r, table)
    except RecursionError:
        raise too_deep(r.pos) from None
    r.done()
    if keep_raw:
        object.__setattr__(obj, "raw", r.buf)
    return obj


def encode_top(obj: Any, kind: Kind, table: TypeTable) -> bytes:
    w = Writer()
    w.version(0)
    kind.write(w, table, obj)
    return w.getvalue()


class Top(Generic[T]):
    """One top-level type: its `decode` (`decode_top` under the type's size cap) and `encode`."""

    __slots__ = ("kind", "table", "cap", "what", "keep_raw")

    def __init__(
        self, kind: Kind, table: TypeTable, cap: int | None, what: str, keep_raw: bool = False
    ) -> None:
        self.kind, self.table, self.cap, self.what = kind, table, cap, what
        self.keep_raw = keep_raw  # the value keeps its bytes as `raw` (the signed txs)

    def decode(self, data: bytes) -> T:
        obj: T = decode_top(data, self.kind, self.table, self.cap, self.what, self.keep_raw)
        return obj

    def encode(self, obj: T) -> bytes:
        return encode_top(obj, self.kind, self.table)


_P_TX = Top[PChainTx](Inline(PChainTx), PCHAIN_TABLE, MAX_TX_SIZE, "P-chain tx", True)
_P_UNSIGNED = Top[PUnsignedTx](Iface(PUnsignedTx), PCHAIN_TABLE, MAX_TX_SIZE, "P-chain tx")
_P_BLOCK = Top[PBlock](Iface(PBlock), PCHAIN_TABLE, MAX_BLOCK_SIZE, "P-chain block")
decode_p_tx, encode_p_tx = _P_TX.decode, _P_TX.encode
decode_p_unsigned_tx, encode_p_unsigned_tx = _P_UNSIGNED.decode, _P_UNSIGNED.encode
decode_p_block, encode_p_block = _P_BLOCK.decode, _P_BLOCK.encode

_X_TX = Top[XChainTx](Inline(XChainTx), XCHAIN_TABLE, MAX_TX_SIZE, "X-chain tx", True)
_X_UNSIGNED = Top[XUnsignedTx](Iface(XUnsignedTx), XCHAIN_TABLE, MAX_TX_SIZE, "X-chain tx")
_X_BLOCK = Top[XBlock](Iface(XBlock), XCHAIN_TABLE, MAX_BLOCK_SIZE, "X-chain block")
_VERTEX = Inline(Vertex)
_STOP_VERTEX = Inline(StopVertex)
decode_x_tx, encode_x_tx = _X_TX.decode, _X_TX.encode
decode_x_unsigned_tx, encode_x_unsigned_tx = _X_UNSIGNED.decode, _X_UNSIGNED.encode
decode_x_block, encode_x_block = _X_BLOCK.decode, _X_BLOCK.encode

_ATOMIC_TX = Top[AtomicTx](Inline(AtomicTx), ATOMIC_TABLE, MAX_TX_SIZE, "atomic tx", True)
_ATOMIC_UNSIGNED = Top[AtomicUnsignedTx](
    Iface(AtomicUnsignedTx), ATOMIC_TABLE, MAX_TX_SIZE, "atomic tx"
)
decode_atomic_tx, encode_atomic_tx = _ATOMIC_TX.decode, _ATOMIC_TX.encode
decode_atomic_unsigned_tx = _ATOMIC_UNSIGNED.decode
encode_atomic_unsigned_tx = _ATOMIC_UNSIGNED.encode
_ATOMIC_BATCH = ListOf(TxSpan(AtomicTx), "atomic txs")
_UTXO = Inline(UTXO)


def decode_vertex(data: bytes) -> Vertex | StopVertex:
    """A legacy DAG vertex: version 0 (with txs) or 1 (the Cortina stop vertex)."""
    check_size(data, MAX_VERTEX_SIZE, "vertex")
    r = Reader(data)
    version = r.version((0, 1))
    vtx: Vertex | StopVertex = (_VERTEX if version == 0 else _STOP_VERTEX).read(r, XCHAIN_TABLE)
    r.done()  # vertices hold no interfaces, so they cannot nest
    return vtx


def encode_vertex(vtx: Vertex | StopVertex) -> bytes:
    w = Writer()
    w.version(0 if isinstance(vtx, Vertex) else 1)
    write_struct(vtx, w, XCHAIN_TABLE)
    return w.getvalue()


def vertex_txs(vtx: Vertex) -> list[XChainTx]:
    """The signed avm txs a vertex carries (each with its own codec version)."""
    return [decode_x_tx(raw) for raw in vtx.transactions]


def decode_ext_data(data: bytes, batch: bool | None = None) -> list[AtomicTx]:
    """Atomic txs in a coreth block's ExtData. `batch`: True = post-ApricotPhase5 list form,
    False = the single-tx form before it, None = try the list form first."""
    if not data:
        return []
    if batch is None:
        try:
            return decode_ext_data(data, True)
        except DecodeError:
            return decode_ext_data(data, False)
    if batch:
        txs: tuple[AtomicTx, ...] = decode_top(data, _ATOMIC_BATCH, ATOMIC_TABLE, None, "extData")
        if not txs:
            raise DecodeError(2, "at least one atomic tx in a post-ApricotPhase5 extData")
        return list(txs)
    return [decode_atomic_tx(data)]


def encode_ext_data(txs: list[AtomicTx], batch: bool = True) -> bytes:
    if not txs:
        return b""
    if batch:
        return encode_top(tuple(txs), _ATOMIC_BATCH, ATOMIC_TABLE)
    if len(txs) != 1:
        raise ValueError("pre-ApricotPhase5 extData holds exactly one atomic tx")
    return encode_atomic_tx(txs[0])


def decode_utxo(data: bytes, table: TypeTable | None = None) -> UTXO:
    """A standalone UTXO (version + txID + index + assetID + typed output). Without a table,
    the P-chain's is tried first, then the X-chain's (their output type IDs agree on 7)."""
    if table is not None:
        utxo: UTXO = decode_top(data, _UTXO, table, MAX_TX_SIZE, "UTXO")
        return utxo
    try:
        return decode_utxo(data, PCHAIN_TABLE)
    except DecodeError:
        return decode_utxo(data, XCHAIN_TABLE)


def encode_utxo(utxo: UTXO, table: TypeTable = PCHAIN_TABLE) -> bytes:
    return encode_top(utxo, _UTXO, table)


def block_id(data: bytes) -> bytes:
    """platformvm and avm block IDs, and vertex IDs: sha256 of the full bytes."""
    return sha256(data)
