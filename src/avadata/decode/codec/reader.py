"""Bounds-checked reads of the Avalanche linear codec (big-endian, length-prefixed).

Every failure is a `DecodeError` carrying the byte offset where the reader stood and what it
expected there. Length prefixes are checked against the bytes that remain *before* anything is
allocated, so a claimed 4 GiB slice in a 100-byte input fails at once instead of hanging.
"""

from __future__ import annotations

import struct

# Caps from avalanchego: tx/block codecs of platformvm and avm and the coreth atomic codec
# reject inputs over 256 KiB; vertices 1 MiB; proposervm, warp and indexer codecs are unbounded.
MAX_TX_SIZE = 256 * 1024
MAX_BLOCK_SIZE = 256 * 1024
MAX_VERTEX_SIZE = 1024 * 1024
# reflectcodec refuses slice counts above MaxInt32.
MAX_SLICE_LEN = 2**31 - 1

_U16 = struct.Struct(">H")
_U32 = struct.Struct(">I")
_U64 = struct.Struct(">Q")
_I64 = struct.Struct(">q")
_U16_AT = _U16.unpack_from
_U32_AT = _U32.unpack_from
_U64_AT = _U64.unpack_from
_I64_AT = _I64.unpack_from


class DecodeError(ValueError):
    """Bytes that are not a valid encoding; `offset` is where the reader stood."""

    def __init__(self, offset: int, expected: str) -> None:
        super().__init__(f"at byte {offset}: expected {expected}")
        self.offset = offset
        self.expected = expected


class Reader:
    """A cursor over immutable bytes. `pos` is public so callers can slice out spans."""

    __slots__ = ("buf", "pos", "end", "depth")

    def __init__(self, buf: bytes, pos: int = 0) -> None:
        self.buf = bytes(buf)
        self.pos = pos
        self.end = len(self.buf)
        self.depth = 0  # interface values currently open (see MAX_IFACE_DEPTH)

    def _short(self, n: int, what: str) -> DecodeError:
        return DecodeError(self.pos, f"{what} ({n} bytes), {self.end - self.pos} left")

    def _need(self, n: int, what: str) -> int:
        pos = self.pos
        if pos + n > self.end:
            raise self._short(n, what)
        self.pos = pos + n
        return pos

    # The integer readers let struct report a short buffer (struct.error) instead of checking
    # bounds first: this is the decoder's hot path.
    def u8(self) -> int:
        pos = self.pos
        if pos >= self.end:
            raise self._short(1, "uint8")
        self.pos = pos + 1
        return self.buf[pos]

    def u16(self) -> int:
        pos = self.pos
        try:
            v: int = _U16_AT(self.buf, pos)[0]
        except struct.error:
            raise self._short(2, "uint16") from None
        self.pos = pos + 2
        return v

    def u32(self) -> int:
        pos = self.pos
        try:
            v: int = _U32_AT(self.buf, pos)[0]
        except struct.error:
            raise self._short(4, "uint32") from None
        self.pos = pos + 4
        return v

    def u64(self) -> int:
        pos = self.pos
        try:
            v: int = _U64_AT(self.buf, pos)[0]
        except struct.error:
            raise self._short(8, "uint64") from None
        self.pos = pos + 8
        return v

    def i64(self) -> int:
        pos = self.pos
        try:
            v: int = _I64_AT(self.buf, pos)[0]
        except struct.error:
            raise self._short(8, "int64") from None
        self.pos = pos + 8
        return v

    def boolean(self) -> bool:
        pos = self._need(1, "bool")
        b = self.buf[pos]
        if b > 1:
            raise DecodeError(pos, f"bool 0 or 1, got {b}")
        return b == 1

    def fixed(self, n: int, what: str = "bytes") -> bytes:
        pos = self.pos
        end = pos + n
        if end > self.end:
            raise self._short(n, what)
        self.pos = end
        return self.buf[pos:end]

    def count(self, min_elem_size: int, what: str = "slice") -> int:
        """A u32 element count, refused when the elements cannot fit in what is left."""
        start = self.pos
        n = self.u32()
        if n > MAX_SLICE_LEN:
            raise DecodeError(start, f"{what} length <= {MAX_SLICE_LEN}, got {n}")
        if n * min_elem_size > self.end - self.pos:
            raise DecodeError(
                start,
                f"{what} of {n} elements (>= {n * min_elem_size} bytes), "
                f"{self.end - self.pos} left",
            )
        return n

    def var_bytes(self, what: str = "byte slice") -> bytes:
        n = self.count(1, what)
        pos = self.pos
        self.pos = pos + n
        return self.buf[pos : pos + n]

    def string(self) -> str:
        start = self.pos
        n = self.u16()
        if n > self.end - self.pos:
            raise DecodeError(start, f"string of {n} bytes, {self.end - self.pos} left")
        pos = self.pos
        self.pos = pos + n
        # Go strings carry arbitrary bytes; surrogateescape keeps them round-trippable.
        return self.buf[pos : pos + n].decode("utf-8", "surrogateescape")

    def version(self, allowed: tuple[int, ...] = (0,)) -> int:
        pos = self.pos
        v = self.u16()
        if v not in allowed:
            raise DecodeError(pos, f"codec version {' or '.join(map(str, allowed))}, got {v}")
        return v

    def done(self) -> None:
        if self.pos != self.end:
            raise DecodeError(self.pos, f"end of input, {self.end - self.pos} trailing bytes")


# Interfaces can nest (a LockIn holding a LockIn ...). Real transactions nest three or four
# deep; the cap is explicit because Python's recursion limit is process-wide state that
# libraries change (py_ecc raises it to 100,000 on import), so it cannot be the guard.
MAX_IFACE_DEPTH = 64


def too_deep(pos: int) -> DecodeError:
    """Input nested deeper than MAX_IFACE_DEPTH (or than the recursion limit) is refused."""
    return DecodeError(pos, f"values nested at most {MAX_IFACE_DEPTH} interfaces deep")


def check_size(data: bytes, cap: int | None, what: str) -> None:
    if cap is not None and len(data) > cap:
        raise DecodeError(cap, f"{what} of at most {cap} bytes, got {len(data)}")
