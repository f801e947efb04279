"""The mirror of reader.py: appends linear-codec values to a growing buffer."""

from __future__ import annotations

import struct

_U16 = struct.Struct(">H")
_U32 = struct.Struct(">I")
_U64 = struct.Struct(">Q")
_I64 = struct.Struct(">q")


class EncodeError(ValueError):
    """A value that has no encoding (out of range, wrong fixed length, nil)."""


class Writer:
    __slots__ = ("buf",)

    def __init__(self) -> None:
        self.buf = bytearray()

    def u8(self, v: int) -> None:
        if not 0 <= v <= 0xFF:
            raise EncodeError(f"uint8 out of range: {v}")
        self.buf.append(v)

    def u16(self, v: int) -> None:
        if not 0 <= v <= 0xFFFF:
            raise EncodeError(f"uint16 out of range: {v}")
        self.buf += _U16.pack(v)

    def u32(self, v: int) -> None:
        if not 0 <= v <= 0xFFFFFFFF:
            raise EncodeError(f"uint32 out of range: {v}")
        self.buf += _U32.pack(v)

    def u64(self, v: int) -> None:
        if not 0 <= v <= 0xFFFFFFFFFFFFFFFF:
            raise EncodeError(f"uint64 out of range: {v}")
        self.buf += _U64.pack(v)

    def i64(self, v: int) -> None:
        if not -(2**63) <= v < 2**63:
            raise EncodeError(f"int64 out of range: {v}")
        self.buf += _I64.pack(v)

    def boolean(self, v: bool) -> None:
        self.buf.append(1 if v else 0)

    def fixed(self, v: bytes, n: int) -> None:
        if len(v) != n:
            raise EncodeError(f"expected {n} bytes, got {len(v)}")
        self.buf += v

    def count(self, n: int) -> None:
        if n > 2**31 - 1:
            raise EncodeError(f"slice too long: {n}")
        self.buf += _U32.pack(n)

    def var_bytes(self, v: bytes) -> None:
        self.count(len(v))
        self.buf += v

    def string(self, v: str) -> None:
        raw = v.encode("utf-8", "surrogateescape")
        self.u16(len(raw)) if len(raw) <= 0xFFFF else self._too_long(len(raw))
        self.buf += raw

    @staticmethod
    def _too_long(n: int) -> None:
        raise EncodeError(f"string too long: {n} bytes")

    def version(self, v: int = 0) -> None:
        self.u16(v)

    def getvalue(self) -> bytes:
        return bytes(self.buf)
