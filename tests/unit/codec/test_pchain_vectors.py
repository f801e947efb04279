"""Every P-chain vector decodes, re-encodes byte-identically and yields the stated IDs."""

from __future__ import annotations

import pytest

from avadata.decode.codec import api
from avadata.decode.codec.ids import cb58_encode, sha256
from avadata.decode.codec.pchain_blocks import PCHAIN_TABLE, block_txs
from tests.unit.codec.vectors import entries

SIGNED = entries("pchain_signed_txs.json")
UNSIGNED = entries("pchain_unsigned_txs.json")
BLOCKS = entries("pchain_blocks.json")


def test_vector_files_are_not_empty() -> None:
    assert len(SIGNED) >= 23 and len(UNSIGNED) >= 14 and len(BLOCKS) >= 7


@pytest.mark.parametrize("v", SIGNED, ids=[v["name"] for v in SIGNED])
def test_signed_tx(v: dict) -> None:
    raw = bytes.fromhex(v["hex"])
    tx = api.decode_p_tx(raw)
    assert type(tx.unsigned).__name__ == v["tx_type"]
    assert PCHAIN_TABLE.type_id(tx.unsigned) == v["type_id"]
    assert len(tx.credentials) == v["credential_count"]
    assert api.encode_p_tx(tx) == raw
    assert tx.tx_id(PCHAIN_TABLE) == v["tx_id"]
    unsigned = tx.unsigned_bytes(PCHAIN_TABLE)
    assert len(unsigned) == v["unsigned_bytes_length"]
    assert sha256(unsigned).hex() == v["unsigned_bytes_sha256"]


@pytest.mark.parametrize("v", UNSIGNED, ids=[v["name"] for v in UNSIGNED])
def test_unsigned_tx(v: dict) -> None:
    raw = bytes.fromhex(v["hex"])
    utx = api.decode_p_unsigned_tx(raw)
    assert type(utx).__name__ == v["tx_type"]
    assert api.encode_p_unsigned_tx(utx) == raw
    assert sha256(raw).hex() == v["unsigned_bytes_sha256"]


@pytest.mark.parametrize("v", BLOCKS, ids=[v["name"] for v in BLOCKS])
def test_block(v: dict) -> None:
    raw = bytes.fromhex(v["hex"])
    block = api.decode_p_block(raw)
    assert type(block).__name__ == v["block_type"]
    assert api.encode_p_block(block) == raw
    assert cb58_encode(api.block_id(raw)) == v["block_id"]
    txs = block_txs(block)
    assert [t.tx_id(PCHAIN_TABLE) for t in txs] == [c["tx_id"] for c in v["contained_txs"]]
    for t, c in zip(txs, v["contained_txs"], strict=True):
        if "signed_tx_hex_with_codec_version" in c:
            assert t.raw.hex() == c["signed_tx_hex_with_codec_version"]
