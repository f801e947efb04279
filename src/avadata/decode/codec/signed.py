"""Signed transactions of every VM: an unsigned tx interface plus credentials.

The tx ID is sha256 of the signed bytes *with* the 2-byte codec version. Inside blocks txs are
embedded without that version, so the reader keeps the span it consumed and we prefix 0x0000:
IDs of decoded txs cost one hash and no re-encoding.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from avadata.decode.codec.fields import Inline, Struct, TypeTable, read_struct, write_struct
from avadata.decode.codec.ids import cb58_encode, sha256
from avadata.decode.codec.reader import Reader
from avadata.decode.codec.writer import Writer

CODEC_VERSION_BYTES = b"\x00\x00"


class SignedTx(Struct):
    """Base of PChainTx, XChainTx and AtomicTx; subclasses declare `unsigned`, `credentials`
    and a non-codec `raw` field holding version + signed bytes once known."""

    __slots__ = ()
    unsigned: Any
    credentials: tuple[Any, ...]
    raw: bytes

    def signed_bytes(self, table: TypeTable) -> bytes:
        if self.raw:
            return self.raw
        w = Writer()
        w.version(0)
        write_struct(self, w, table)
        return w.getvalue()

    def unsigned_bytes(self, table: TypeTable) -> bytes:
        """What secp256k1 signatures sign the sha256 of: version + type ID + fields."""
        w = Writer()
        w.version(0)
        table_kind_write_unsigned(self, w, table)
        return w.getvalue()

    def id_bytes(self, table: TypeTable) -> bytes:
        return sha256(self.signed_bytes(table))

    def tx_id(self, table: TypeTable) -> str:
        return cb58_encode(self.id_bytes(table))


def table_kind_write_unsigned(tx: SignedTx, w: Writer, table: TypeTable) -> None:
    name, kind = tx.__codec_fields__[0]
    kind.write(w, table, getattr(tx, name))


class TxSpan(Inline):
    """A signed tx embedded in a block: decoded as a struct, its bytes kept for the ID."""

    def read(self, r: Reader, t: TypeTable) -> Any:
        start = r.pos
        obj = read_struct(self.cls, r, t)
        object.__setattr__(obj, "raw", CODEC_VERSION_BYTES + r.buf[start : r.pos])
        return obj


def with_raw(tx: Any, raw: bytes) -> Any:
    return dataclasses.replace(tx, raw=raw)
