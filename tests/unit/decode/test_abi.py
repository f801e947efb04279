"""The hand ABI decoders against eth-abi itself: the same values where eth-abi decodes, an error
where it raises, on well-formed encodings, hand-made edge cases and random mutations of them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from eth_abi.abi import decode, encode
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from avadata.decode.abi import string, uint256_arrays

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))


def _arrays(data: bytes) -> Any:
    return [list(a) for a in decode(["uint256[]", "uint256[]"], data, strict=False)]


def _string(data: bytes) -> Any:
    return decode(["string"], data)[0]


def _same(ours: Callable[[bytes], Any], theirs: Callable[[bytes], Any], data: bytes) -> None:
    try:
        want = theirs(data)
    except Exception:  # eth-abi raises several unrelated types on bad input
        with pytest.raises(ValueError):
            ours(data)
        return
    assert ours(data) == want


def _word(n: int) -> bytes:
    return n.to_bytes(32, "big")


ARRAY_CASES = [
    encode(["uint256[]", "uint256[]"], [[1, 2, 3], [10, 20, 2**256 - 1]]),
    encode(["uint256[]", "uint256[]"], [[], []]),
    encode(["uint256[]", "uint256[]"], [[5], [6]]) + b"\x01" * 7,  # trailing bytes: ignored
    _word(64) + _word(64) + _word(1) + _word(9),  # both arrays at one place
    _word(64) + _word(96) + _word(1) + _word(9),  # the second's length is the first's item
    _word(32) + _word(64) + _word(0),  # a pointer into the offsets
    _word(64) + _word(200) + _word(0),  # a pointer past the end
    _word(64) + _word(96) + _word(2**255) + _word(0),  # a length past the end
    _word(64) + _word(96) + _word(2) + _word(1),  # one item short
    _word(64)[:31],
    b"",
]

STRING_CASES = [
    encode(["string"], ["Wrapped AVAX"]),
    encode(["string"], [""]),
    encode(["string"], ["x" * 32]),
    encode(["string"], ["é" * 40]),
    _word(32) + _word(3) + b"abc" + b"\x00" * 28 + b"\xff",  # trailing bytes after the padding
    _word(32) + _word(3) + b"abc" + b"\x00" * 28,  # padded one byte short
    _word(32) + _word(3) + b"abc" + b"\x00" * 28 + b"\x01",  # ... and a stray byte after it
    _word(32) + _word(3) + b"abc" + b"\x00" * 27 + b"\x01",  # non-zero padding
    _word(32) + _word(2) + b"\xff\xfe" + b"\x00" * 30,  # not UTF-8
    _word(0) + _word(0),  # a pointer into the offsets
    _word(64) + _word(0),  # a pointer past the end
    _word(32) + _word(2**200),
    _word(32)[:20],
]


@pytest.mark.parametrize("data", ARRAY_CASES)
def test_uint256_arrays_cases(data: bytes) -> None:
    _same(lambda d: uint256_arrays(d, 2), _arrays, data)


@pytest.mark.parametrize("data", STRING_CASES)
def test_string_cases(data: bytes) -> None:
    _same(string, _string, data)


def _mutated(draw: Any, data: bytes) -> bytes:
    """`data` cut short, with bytes changed, or with bytes added."""
    buf = bytearray(data)
    for _ in range(draw(st.integers(0, 3))):
        if buf and draw(st.booleans()):
            buf[draw(st.integers(0, len(buf) - 1))] = draw(st.sampled_from([0, 1, 2, 32, 64, 255]))
    cut = draw(st.integers(0, len(buf) + 40))
    return bytes(buf[:cut]) + draw(st.binary(max_size=40)) if cut > len(buf) else bytes(buf[:cut])


@st.composite
def array_data(draw: Any) -> bytes:
    values = st.lists(st.integers(0, 2**256 - 1), max_size=4)
    return _mutated(draw, encode(["uint256[]", "uint256[]"], [draw(values), draw(values)]))


@st.composite
def string_data(draw: Any) -> bytes:
    return _mutated(draw, encode(["string"], [draw(st.text(max_size=40))]))


@SETTINGS
@given(array_data())
def test_uint256_arrays_as_eth_abi(data: bytes) -> None:
    _same(lambda d: uint256_arrays(d, 2), _arrays, data)


@SETTINGS
@given(string_data())
def test_string_as_eth_abi(data: bytes) -> None:
    _same(string, _string, data)
