"""X-chain, C-chain atomic, UTXO, proposervm and warp vectors: decode, re-encode, IDs."""

from __future__ import annotations

import pytest

from avadata.decode.codec import api, cblock, proposervm, warp
from avadata.decode.codec.atomic import ATOMIC_TABLE
from avadata.decode.codec.ids import cb58_encode, hex_with_checksum, sha256, strip_checksum
from avadata.decode.codec.ids import utxo_id as utxo_input_id
from avadata.decode.codec.reader import DecodeError
from avadata.decode.codec.xchain import XCHAIN_TABLE, Vertex
from tests.unit.codec.vectors import entries, load

X = entries("xchain.json")
VERTICES = entries("xchain.json", "vertices")
ATOMIC = entries("cchain_atomic.json")
CBLOCKS = entries("cchain_atomic.json", "blocks")
UTXOS = entries("utxos.json")
PROPOSER = entries("proposervm_blocks.json")
WARP = entries("warp_messages.json")


def test_vector_files_are_not_empty() -> None:
    assert len(X) >= 5 and VERTICES and len(ATOMIC) >= 8 and len(CBLOCKS) >= 3
    assert len(UTXOS) >= 10 and len(PROPOSER) >= 2 and len(WARP) >= 15


@pytest.mark.parametrize("v", X, ids=[v["name"] for v in X])
def test_xchain_tx(v: dict) -> None:
    raw = bytes.fromhex(v["hex"])
    if v["kind"] == "signed_tx":
        tx = api.decode_x_tx(raw)
        assert type(tx.unsigned).__name__ == v["tx_type"]
        assert len(tx.credentials) == v["credential_count"]
        assert api.encode_x_tx(tx) == raw
        assert tx.tx_id(XCHAIN_TABLE) == v["tx_id"]
        assert sha256(tx.unsigned_bytes(XCHAIN_TABLE)).hex() == v["unsigned_bytes_sha256"]
    else:
        utx = api.decode_x_unsigned_tx(raw)
        assert type(utx).__name__ == v["tx_type"]
        assert api.encode_x_unsigned_tx(utx) == raw
        assert sha256(raw).hex() == v["unsigned_bytes_sha256"]
        assert raw[6:].hex() == v["fixture_struct_hex"]


@pytest.mark.parametrize("v", VERTICES, ids=[v["name"] for v in VERTICES])
def test_vertex(v: dict) -> None:
    raw = bytes.fromhex(v["hex"])
    vtx = api.decode_vertex(raw)
    assert api.encode_vertex(vtx) == raw
    assert cb58_encode(api.block_id(raw)) == v["vertex_id"]
    decoded = v["decoded"]
    assert cb58_encode(vtx.chain_id) == decoded["chainID"]
    assert vtx.height == decoded["height"]
    assert [cb58_encode(p) for p in vtx.parent_ids] == decoded["parentIDs"]
    assert isinstance(vtx, Vertex)
    for tx in api.vertex_txs(vtx):
        assert api.encode_x_tx(tx) in vtx.transactions


@pytest.mark.parametrize("v", ATOMIC, ids=[v["name"] for v in ATOMIC])
def test_atomic_tx(v: dict) -> None:
    raw = bytes.fromhex(v["hex"])
    if v["kind"] == "atomic_signed_tx":
        tx = api.decode_atomic_tx(raw)
        assert type(tx.unsigned).__name__ == v["tx_type"]
        assert len(tx.credentials) == v["credential_count"]
        assert api.encode_atomic_tx(tx) == raw
        assert tx.tx_id(ATOMIC_TABLE) == v["tx_id"]
        assert sha256(tx.unsigned_bytes(ATOMIC_TABLE)).hex() == v["unsigned_bytes_sha256"]
    else:
        utx = api.decode_atomic_unsigned_tx(raw)
        assert type(utx).__name__ == v["tx_type"]
        assert api.encode_atomic_unsigned_tx(utx) == raw
        assert raw[6:].hex() == v["fixture_struct_hex"]


@pytest.mark.parametrize("v", CBLOCKS, ids=[v["name"] for v in CBLOCKS])
def test_cchain_block(v: dict) -> None:
    raw = bytes.fromhex(v["rlp_hex"])
    block = cblock.decode_cchain_block(raw)
    assert cblock.encode_cchain_block(block) == raw
    assert "0x" + block.block_hash.hex() == v["block_hash"]
    assert len(block.header) == v["header_field_count"]
    assert len(block.transactions) == v["tx_count"]
    assert block.version == v["version"]
    assert block.ext_data.hex() == v["ext_data_hex"]
    assert "0x" + block.ext_data_hash.hex() == v["keccak256_of_rlp_encoded_ext_data"]
    if "ext_data_atomic_tx_id" in v:
        assert [t.tx_id(ATOMIC_TABLE) for t in block.atomic_txs] == [v["ext_data_atomic_tx_id"]]
        assert api.encode_ext_data(list(block.atomic_txs), batch=False) == block.ext_data
    else:
        assert block.atomic_txs == ()


@pytest.mark.parametrize("v", UTXOS, ids=[f"{v['chain']}-{i}" for i, v in enumerate(UTXOS)])
def test_utxo(v: dict) -> None:
    api_raw = bytes.fromhex(v["api_hex"][2:])
    raw = bytes.fromhex(v["utxo_hex"])
    assert strip_checksum(api_raw) == raw
    assert hex_with_checksum(raw) == v["api_hex"]
    utxo = api.decode_utxo(raw, XCHAIN_TABLE if v["chain"] == "X" else None)
    assert api.encode_utxo(utxo, XCHAIN_TABLE) == raw
    assert cb58_encode(utxo_input_id(utxo.tx_id, utxo.output_index)) == v["utxo_id_for_inputs"]


@pytest.mark.parametrize("v", PROPOSER, ids=[v["name"] for v in PROPOSER])
def test_proposervm(v: dict) -> None:
    raw = bytes.fromhex(v["hex"])
    blk = proposervm.decode_proposervm(raw)
    assert proposervm.encode_proposervm(blk) == raw
    assert cb58_encode(blk.id_bytes()) == v["block_id"]
    decoded = v["decoded"]
    assert proposervm.PROPOSERVM_TABLE.type_id(blk) == decoded["typeID"]
    assert cb58_encode(blk.parent_id) == decoded["parentID"]  # type: ignore[attr-defined]
    assert blk.timestamp == decoded["timestamp"]  # type: ignore[attr-defined]
    assert blk.p_chain_height == decoded["pChainHeight"]  # type: ignore[attr-defined]


@pytest.mark.parametrize("v", WARP, ids=[v["name"] for v in WARP])
def test_warp(v: dict) -> None:
    kind = v["kind"]
    if kind == "derived_ids":
        tx_vec = next(
            t for t in entries("pchain_signed_txs.json") if t["tx_type"] == "ConvertSubnetToL1Tx"
        )
        tx = api.decode_p_tx(bytes.fromhex(tx_vec["hex"]))
        subnet_id = tx.unsigned.subnet_id  # type: ignore[attr-defined]
        assert cb58_encode(subnet_id) == v["subnetID"]
        got = [
            cb58_encode(warp.validation_id_of_conversion(subnet_id, i))
            for i in range(len(tx.unsigned.validators))  # type: ignore[attr-defined]
        ]
        assert got == v["validation_ids"]
        return
    raw = bytes.fromhex(v["hex"])
    if kind == "signed_warp_message":
        msg = warp.decode_signed_message(raw)
        assert warp.encode_signed_message(msg) == raw
        assert cb58_encode(warp.message_id(msg)) == v["unsigned_message_id"]
        _, call, pmsg = warp.l1_message_of(raw)
        if "validation_id" in v:
            assert isinstance(pmsg, warp.RegisterL1Validator)
            assert (
                cb58_encode(warp.validation_id_of_registration(call.payload)) == v["validation_id"]
            )
        assert msg.unsigned.network_id == v["decoded"]["networkID"]
    elif kind == "warp_message_payload":
        m = warp.decode_pchain_message(raw)
        assert type(m).__name__ == v["decoded"]["_type"].split(".")[-1]
        assert warp.MESSAGE_TABLE.type_id(m) == v["decoded"]["_typeID"]
        assert warp.encode_pchain_message(m) == raw
        if "validation_id_hex" in v:
            assert warp.validation_id_of_registration(raw).hex() == v["validation_id_hex"]
    elif kind == "conversion_data":
        d = warp.decode_conversion_data(raw)
        assert warp.encode_conversion_data(d) == raw
        assert sha256(raw).hex() == v["conversion_id_hex"]
        assert cb58_encode(sha256(raw)) == v["conversion_id"]
    else:
        assert kind == "fixture_struct_bytes"
        _fixture(v["name"], b"\0\0" + raw)


def _fixture(name: str, data: bytes) -> None:
    """avalanchejs fixtures omit the codec version; with it prepended they must round-trip."""
    if name.endswith("warpMessageBytes"):
        assert warp.encode_signed_message(warp.decode_signed_message(data)) == data
    elif name.endswith("addressedCallBytes"):
        p = warp.decode_payload(data)
        assert isinstance(p, warp.AddressedCall)
        assert warp.encode_payload(p) == data
    elif name.endswith("conversionDataBytes"):
        # This avalanchejs fixture wraps the validator list in an extra u32 byte length
        # (0x54 = 84 = one validator's list bytes), which avalanchego's layout (the
        # subnet_to_l1_conversion_data vector) does not have: we refuse it as written and
        # accept it without that wrapper.
        with pytest.raises(DecodeError):
            warp.decode_conversion_data(data)
        cut = 2 + 32 + 32 + 4 + 20
        assert int.from_bytes(data[cut : cut + 4], "big") == len(data) - cut - 4
        plain = data[:cut] + data[cut + 4 :]
        assert warp.encode_conversion_data(warp.decode_conversion_data(plain)) == plain
    else:
        assert warp.encode_pchain_message(warp.decode_pchain_message(data)) == data


def test_index_file_lists_every_vector_file() -> None:
    index = load("index.json")
    assert set(index["files"]) >= {
        "pchain_signed_txs.json",
        "xchain.json",
        "cchain_atomic.json",
        "warp_messages.json",
    }
