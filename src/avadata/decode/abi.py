"""The two ABI shapes the decoders read, decoded by hand: uint256 arrays (ERC-1155
TransferBatch) and a string (a token's name or symbol), pure.

Why not eth-abi: importing it brings eth-utils and pydantic, a noticeable share of a fetch
process's CPU (docs/benchmarks.md), for two fixed layouts. Each function accepts exactly what
eth-abi's `decode` accepts for its types, in the mode the decoders ask (TransferBatch
non-strict, as Solidity decodes; names strict), and raises ValueError where it raises:
tests/unit/decode/test_abi.py holds them to eth-abi on edge cases and random input.
"""

from __future__ import annotations

_WORD = 32


def _word(data: bytes, at: int) -> int:
    """The big-endian uint256 at byte `at`; ValueError past the end."""
    if at + _WORD > len(data):
        raise ValueError(f"ABI word at {at} past the data's {len(data)} bytes")
    return int.from_bytes(data[at : at + _WORD], "big")


def _tails(data: bytes, count: int) -> list[int]:
    """Where each of a tuple's `count` dynamic values starts: its offset, which must point past
    the offsets and inside the data (eth-abi checks every pointer before decoding any)."""
    out = []
    for i in range(count):
        offset = _word(data, i * _WORD)
        if not count * _WORD <= offset < len(data):
            raise ValueError(f"ABI pointer {offset} out of place")
        out.append(offset)
    return out


def uint256_arrays(data: bytes, count: int) -> list[list[int]]:
    """`data` as the tuple (uint256[], ...) of `count` arrays, non-strict (bytes after the
    values are ignored)."""
    out = []
    for offset in _tails(data, count):
        length = _word(data, offset)
        first = offset + _WORD
        if first + length * _WORD > len(data):
            raise ValueError(f"ABI array of {length} past the data's end")
        out.append(
            [
                int.from_bytes(data[at : at + _WORD], "big")
                for at in range(first, first + length * _WORD, _WORD)
            ]
        )
    return out


def string(data: bytes) -> str:
    """`data` as the tuple (string), strict: the bytes padded with zeros to whole words,
    valid UTF-8."""
    (offset,) = _tails(data, 1)
    length = _word(data, offset)
    first = offset + _WORD
    padded = -(-length // _WORD) * _WORD
    if first + padded > len(data):
        raise ValueError(f"ABI string of {length} bytes past the data's end")
    if any(data[first + length : first + padded]):
        raise ValueError("ABI string padding is not zero")
    return data[first : first + length].decode("utf-8")
