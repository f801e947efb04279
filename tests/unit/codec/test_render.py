"""JSON rendering against JSON stated by avalanchego's own tests (expected_json in the
unsigned-tx vectors): every value they state appears in ours under the matching key."""

from __future__ import annotations

from typing import Any

import pytest

from avadata.decode.codec import api, render
from tests.unit.codec.vectors import entries

WITH_JSON = [v for v in entries("pchain_unsigned_txs.json") if "expected_json" in v]
# avalanchego JSON key -> ours, where normalising case and "ID"/"Id" is not enough
ALIASES = {"subnetauthorization": "subnetauth", "disableauthorization": "disableauth"}
NOT_SERIALIZED = {"fxid"}  # Go fills fxID in JSON; it is not in the bytes


def norm(key: str) -> str:
    k = key.lower()
    return ALIASES.get(k, k)


def compare(expected: Any, ours: Any, path: str) -> None:
    if isinstance(expected, dict):
        assert isinstance(ours, dict), path
        by_norm = {norm(k): k for k in ours}
        for k, v in expected.items():
            if norm(k) in NOT_SERIALIZED:
                continue
            assert norm(k) in by_norm, f"{path}.{k} missing from {sorted(ours)}"
            compare(v, ours[by_norm[norm(k)]], f"{path}.{k}")
    elif isinstance(expected, list) and isinstance(ours, str) and ours.startswith("0x"):
        assert bytes(expected) == bytes.fromhex(ours[2:]), path  # Go prints [N]byte as ints
    elif isinstance(expected, list):
        assert isinstance(ours, list) and len(ours) == len(expected), path
        for i, (e, o) in enumerate(zip(expected, ours, strict=True)):
            compare(e, o, f"{path}[{i}]")
    elif isinstance(expected, int) and isinstance(ours, str):
        assert ours == str(expected), path  # amounts are decimal strings, as in the Data API
    else:
        assert ours == expected, path


@pytest.mark.parametrize("v", WITH_JSON, ids=[v["tx_type"] for v in WITH_JSON])
def test_json_states_the_same_values_as_avalanchego(v: dict) -> None:
    utx = api.decode_p_unsigned_tx(bytes.fromhex(v["hex"]))
    ours = render.unsigned_json(utx, "P")
    compare(v["expected_json"], ours, v["tx_type"])


def test_there_are_stated_jsons() -> None:
    assert len(WITH_JSON) >= 5


def test_block_json_states_what_platformvm_service_md_states() -> None:
    """platformvm/service.md shows this mainnet block as JSON; our rendering agrees (the
    exported output keeps the P- prefix there too, as avalanchego prints it)."""
    from avadata.decode.codec import containers

    v = entries("pchain_blocks.json")[0]
    src = v["expected_from_source_json"]
    out = containers.container_json(containers.decode_container("P", bytes.fromhex(v["hex"])))
    assert out["parentId"] == src["parentID"] and out["height"] == src["height"]
    (tx,) = out["transactions"]
    assert tx["txType"] == src["tx_type"] and tx["networkId"] == src["networkID"]
    assert tx["destinationChain"] == src["destinationChain"]
    assert tx["inputs"][0]["txId"] == src["input_txID"]
    assert tx["inputs"][0]["input"]["amount"] == str(src["input_amount"])
    exported = tx["exportedOutputs"][0]["output"]
    assert exported["amount"] == str(src["exported_amount"])
    assert exported["addresses"] == [src["exported_address"]]
