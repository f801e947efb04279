"""Property tests: encode -> decode is the identity on generated objects of every type, and
any truncation or mutation of valid bytes gives DecodeError or a valid object, nothing else."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from avadata.decode.codec import api, cblock, proposervm, warp
from avadata.decode.codec.atomic import ATOMIC_TABLE, AtomicTx, AtomicUnsignedTx
from avadata.decode.codec.pchain import PChainTx, PUnsignedTx
from avadata.decode.codec.pchain_blocks import PCHAIN_TABLE, PBlock
from avadata.decode.codec.reader import DecodeError
from avadata.decode.codec.xchain import XCHAIN_TABLE, XBlock, XChainTx, XUnsignedTx
from tests.unit.codec.strategies import iface_strategy, struct_strategy
from tests.unit.codec.vectors import entries

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))

ROUND_TRIPS: list[tuple[str, st.SearchStrategy[Any], Callable[[Any], bytes], Callable[..., Any]]]
ROUND_TRIPS = [
    ("p-tx", struct_strategy(PChainTx, PCHAIN_TABLE), api.encode_p_tx, api.decode_p_tx),
    (
        "p-unsigned",
        iface_strategy(PUnsignedTx, PCHAIN_TABLE),
        api.encode_p_unsigned_tx,
        api.decode_p_unsigned_tx,
    ),
    ("p-block", iface_strategy(PBlock, PCHAIN_TABLE), api.encode_p_block, api.decode_p_block),
    ("x-tx", struct_strategy(XChainTx, XCHAIN_TABLE), api.encode_x_tx, api.decode_x_tx),
    (
        "x-unsigned",
        iface_strategy(XUnsignedTx, XCHAIN_TABLE),
        api.encode_x_unsigned_tx,
        api.decode_x_unsigned_tx,
    ),
    ("x-block", iface_strategy(XBlock, XCHAIN_TABLE), api.encode_x_block, api.decode_x_block),
    (
        "c-tx",
        struct_strategy(AtomicTx, ATOMIC_TABLE),
        api.encode_atomic_tx,
        api.decode_atomic_tx,
    ),
    (
        "c-unsigned",
        iface_strategy(AtomicUnsignedTx, ATOMIC_TABLE),
        api.encode_atomic_unsigned_tx,
        api.decode_atomic_unsigned_tx,
    ),
    (
        "proposervm",
        iface_strategy(proposervm.ProposerBlock, proposervm.PROPOSERVM_TABLE),
        proposervm.encode_proposervm,
        proposervm.decode_proposervm,
    ),
    (
        "warp",
        struct_strategy(warp.SignedMessage, warp.SIGNATURE_TABLE),
        warp.encode_signed_message,
        warp.decode_signed_message,
    ),
    (
        "warp-message",
        iface_strategy(warp.PChainMessage, warp.MESSAGE_TABLE),
        warp.encode_pchain_message,
        warp.decode_pchain_message,
    ),
]


@pytest.mark.parametrize("name, strategy, encode, decode", ROUND_TRIPS, ids=lambda x: x)
def test_encode_decode_identity(name: str, strategy: Any, encode: Any, decode: Any) -> None:
    @SETTINGS
    @given(strategy)
    def check(obj: Any) -> None:
        raw = encode(obj)
        back = decode(raw)
        assert back == obj
        assert encode(back) == raw

    check()


DECODERS: list[Callable[[bytes], Any]] = [
    api.decode_p_tx,
    api.decode_p_unsigned_tx,
    api.decode_p_block,
    api.decode_x_tx,
    api.decode_x_unsigned_tx,
    api.decode_x_block,
    api.decode_vertex,
    api.decode_atomic_tx,
    api.decode_atomic_unsigned_tx,
    api.decode_ext_data,
    api.decode_utxo,
    proposervm.decode_proposervm,
    warp.decode_signed_message,
    warp.decode_payload,
    warp.decode_pchain_message,
    warp.decode_conversion_data,
    cblock.decode_cchain_block,
]


def _seeds() -> list[bytes]:
    out: list[bytes] = []
    for name in (
        "pchain_signed_txs.json",
        "pchain_unsigned_txs.json",
        "pchain_blocks.json",
        "xchain.json",
        "cchain_atomic.json",
        "proposervm_blocks.json",
        "warp_messages.json",
    ):
        out += [bytes.fromhex(v["hex"]) for v in entries(name) if "hex" in v]
    out += [bytes.fromhex(v["rlp_hex"]) for v in entries("cchain_atomic.json", "blocks")]
    out += [bytes.fromhex(v["hex"]) for v in entries("xchain.json", "vertices")]
    out += [bytes.fromhex(v["utxo_hex"]) for v in entries("utxos.json")]
    return out


SEEDS = _seeds()


def decode_all_or_decode_error(data: bytes) -> None:
    for decode in DECODERS:
        try:
            decode(data)
        except DecodeError as e:
            assert 0 <= e.offset <= max(len(data), 256 * 1024)


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["truncate", "flip", "set", "insert", "delete"]))
        pos = draw(st.integers(0, max(len(data) - 1, 0)))
        if op == "truncate":
            del data[pos:]
        elif op == "flip" and data:
            data[pos] ^= 1 << draw(st.integers(0, 7))
        elif op == "set" and data:
            data[pos] = draw(st.sampled_from([0x00, 0x01, 0x02, 0x7F, 0x80, 0xFF]))
        elif op == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=4))
        elif op == "delete" and data:
            del data[pos : pos + draw(st.integers(1, 8))]
    return bytes(data)


# AVADATA_FUZZ_EXAMPLES raises this for the long fuzz run recorded in docs/benchmarks.md.
FUZZ_EXAMPLES = int(os.environ.get("AVADATA_FUZZ_EXAMPLES", "300"))


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(mutated())
def test_mutations_give_decode_error_or_an_object(data: bytes) -> None:
    decode_all_or_decode_error(data)


@pytest.mark.parametrize("seed", range(len(SEEDS)))
def test_every_truncation_is_a_decode_error(seed: int) -> None:
    data = SEEDS[seed]
    for cut in range(len(data)):
        decode_all_or_decode_error(data[:cut])


def test_claimed_huge_lengths_fail_fast_without_allocating() -> None:
    # network ID, chain ID, then an output count of 2^31-1 and of 2^32-1
    head = bytes.fromhex("00000000002200000001") + bytes(32)
    for count in (b"\x7f\xff\xff\xff", b"\xff\xff\xff\xff"):
        with pytest.raises(DecodeError) as e:
            api.decode_p_unsigned_tx(head + count)
        assert e.value.offset == len(head)
    with pytest.raises(DecodeError):  # memo claiming 4 GiB
        api.decode_p_unsigned_tx(head + bytes(8) + b"\xff\xff\xff\xff")


def test_bool_must_be_zero_or_one() -> None:
    raw = bytes.fromhex("00000000000201") + bytes(31) + b"\x02"
    with pytest.raises(DecodeError) as e:
        warp.decode_pchain_message(raw)
    assert e.value.offset == len(raw) - 1 and "bool" in e.value.expected


def test_size_cap() -> None:
    with pytest.raises(DecodeError) as e:
        api.decode_p_tx(bytes(256 * 1024 + 1))
    assert "at most 262144 bytes" in str(e.value)


def test_type_id_of_the_wrong_role_is_refused() -> None:
    # P-chain type 0 is a block; a tx position must refuse it.
    with pytest.raises(DecodeError) as e:
        api.decode_p_unsigned_tx(bytes.fromhex("000000000000") + bytes(40))
    assert e.value.offset == 2 and "PUnsignedTx" in e.value.expected


RENDERABLE = [
    ("P", struct_strategy(PChainTx, PCHAIN_TABLE)),
    ("X", struct_strategy(XChainTx, XCHAIN_TABLE)),
    ("C", struct_strategy(AtomicTx, ATOMIC_TABLE)),
]


@pytest.mark.parametrize(
    "chain, strategy", RENDERABLE, ids=lambda x: x if isinstance(x, str) else ""
)
def test_any_tx_renders_to_json(chain: str, strategy: Any) -> None:
    import json

    from avadata.decode.codec import render

    @SETTINGS
    @given(strategy)
    def check(tx: Any) -> None:
        out = render.tx_json(tx, chain)
        assert out["txHash"] == tx.tx_id(
            {"P": PCHAIN_TABLE, "X": XCHAIN_TABLE, "C": ATOMIC_TABLE}[chain]
        )
        json.dumps(out)

    check()


@pytest.mark.parametrize("recursion_limit", [1000, 100_000])
def test_deep_nesting_is_a_decode_error_not_a_recursion_error(recursion_limit: int) -> None:
    # The guard must not lean on the recursion limit: py_ecc raises it to 100,000 on import.
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(recursion_limit)
    try:
        _check_deep_nesting()
    finally:
        sys.setrecursionlimit(old)


def _check_deep_nesting() -> None:
    # BaseTx with one input whose stakeable.LockIn holds a LockIn ... 5000 deep
    head = bytes.fromhex("00000000002200000001") + bytes(32)
    head += bytes(4) + bytes.fromhex("00000001") + bytes(32) + bytes(4) + bytes(32)
    nest = (bytes.fromhex("00000015") + bytes(8)) * 5000
    tail = bytes.fromhex("00000005") + bytes(8) + bytes(4) + bytes(4)
    with pytest.raises(DecodeError) as e:
        api.decode_p_unsigned_tx(head + nest + tail)
    assert "nested" in e.value.expected
    # and a moderately nested one is fine (avalanchego would parse it too)
    ok = head + (bytes.fromhex("00000015") + bytes(8)) * 20 + tail
    assert api.encode_p_unsigned_tx(api.decode_p_unsigned_tx(ok)) == ok


def test_deeply_nested_rlp_is_a_decode_error() -> None:
    data = b"\xc0"
    for _ in range(3000):
        n = len(data)
        data = (bytes([0xC0 + n]) if n <= 55 else b"\xf9" + n.to_bytes(2, "big")) + data
    with pytest.raises(DecodeError):
        cblock.decode_cchain_block(data)


@st.composite
def mutated_generated(draw: st.DrawFn) -> bytes:
    """Like mutated(), but seeded by encodings of generated objects of every VM type."""
    index = draw(st.integers(0, len(ROUND_TRIPS) - 1))
    _, strategy, encode, _ = ROUND_TRIPS[index]
    data = bytearray(encode(draw(strategy)))
    for _ in range(draw(st.integers(1, 3))):
        pos = draw(st.integers(0, max(len(data) - 1, 0)))
        op = draw(st.sampled_from(["truncate", "flip", "insert", "delete"]))
        if op == "truncate":
            del data[pos:]
        elif op == "flip" and data:
            data[pos] ^= 1 << draw(st.integers(0, 7))
        elif op == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=4))
        elif op == "delete" and data:
            del data[pos : pos + draw(st.integers(1, 8))]
    return bytes(data)


@settings(
    max_examples=max(FUZZ_EXAMPLES // 3, 100),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(mutated_generated())
def test_mutations_of_generated_objects(data: bytes) -> None:
    decode_all_or_decode_error(data)
