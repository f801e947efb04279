"""CB58, checksummed hex, NodeIDs, keys, bech32 addresses and derived IDs against vectors."""

from __future__ import annotations

import pytest

from avadata.decode.codec import ids
from avadata.decode.codec.reader import DecodeError
from tests.unit.codec.vectors import load

V = load("ids_and_addresses.json")


@pytest.mark.parametrize("v", V["cb58"])
def test_cb58(v: dict) -> None:
    raw = bytes.fromhex(v["bytes_hex"])
    assert ids.cb58_encode(raw) == v["cb58"]
    assert ids.cb58_decode(v["cb58"]) == raw


def test_cb58_bad_checksum_is_a_decode_error() -> None:
    good = V["cb58"][3]["cb58"]
    bad = good[:-1] + ("1" if good[-1] != "1" else "2")
    with pytest.raises(DecodeError):
        ids.cb58_decode(bad)


@pytest.mark.parametrize("v", V["api_hex_with_checksum"]["vectors"])
def test_hex_checksum(v: dict) -> None:
    raw = bytes.fromhex(v["bytes_hex"])
    assert ids.hex_with_checksum(raw) == v["api_hex"]
    assert ids.strip_checksum(ids.parse_hex(v["api_hex"])) == raw


@pytest.mark.parametrize("v", V["ids"] + V["well_known_ids"], ids=lambda v: v["label"])
def test_ids(v: dict) -> None:
    assert ids.cb58_encode(bytes.fromhex(v["hex"])) == v["cb58"]
    label = v["label"]
    if 'ID("' in label and "=" in label:
        name = label.split('ID("')[1].split('"')[0]
        assert ids.vm_id(name).hex() == v["hex"]


@pytest.mark.parametrize("v", V["node_ids"]["vectors"], ids=lambda v: v["label"])
def test_node_ids(v: dict) -> None:
    assert ids.node_id_str(bytes.fromhex(v["hex"])) == v["string"]
    assert ids.parse_node_id(v["string"]).hex() == v["hex"]


@pytest.mark.parametrize("v", V["keys_and_addresses"]["vectors"], ids=lambda v: v["label"])
def test_keys_and_addresses(v: dict) -> None:
    import coincurve

    priv = coincurve.PrivateKey(bytes.fromhex(v["private_key_hex"]))
    if "private_key_string" in v:
        assert "PrivateKey-" + ids.cb58_encode(priv.secret) == v["private_key_string"]
    pub = priv.public_key.format(compressed=True)
    assert pub.hex() == v["compressed_pubkey_hex"]
    addr = ids.address_from_pubkey(pub)
    assert addr.hex() == v["address_hex"]
    assert ids.address_from_pubkey(priv.public_key.format(compressed=False)) == addr
    assert ids.cb58_encode(addr) == v["short_id_cb58"]
    for hrp, text in v["bech32"].items():
        assert ids.bech32_address(addr, hrp) == text
        assert ids.parse_bech32_address("X-" + text) == ("X", hrp, addr)
    assert ids.eth_address_from_pubkey(pub) == v["eth_address"]
    for key, text in v.get("stated", {}).items():
        if key.startswith(("X-", "P-", "C-")):
            chain, hrp = key.split("-")
            assert ids.bech32_address(addr, hrp, chain) == text


def test_hrp_by_network_id() -> None:
    assert [ids.hrp_for_network(n) for n in (1, 5, 12345, 10, 2, 3, 4, 99)] == [
        "avax", "fuji", "local", "testing", "cascade", "denali", "everest", "custom"
    ]  # fmt: skip


@pytest.mark.parametrize("v", V["formatted_addresses"], ids=lambda v: v["formatted"])
def test_formatted_addresses(v: dict) -> None:
    chain, hrp, raw = ids.parse_bech32_address(v["formatted"])
    assert raw.hex() == v["address_hex"]
    assert ids.bech32_address(raw, hrp, chain) == v["formatted"]


@pytest.mark.parametrize("v", V["derived_ids"]["examples"])
def test_utxo_input_ids(v: dict) -> None:
    tx_id = ids.cb58_decode(v["txID"])
    assert ids.cb58_encode(ids.utxo_id(tx_id, v["outputIndex"])) == v["input_id"]
