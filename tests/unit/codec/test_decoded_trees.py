"""Our decoded objects against the `decoded` field trees in the vectors (written by a
separate throwaway decoder; avalanchego JSON tags): every stated type, type ID and value
must match the field it names in our object."""

from __future__ import annotations

from typing import Any

import pytest

from avadata.decode.codec import api
from avadata.decode.codec.atomic import ATOMIC_TABLE
from avadata.decode.codec.fields import TypeTable
from avadata.decode.codec.ids import cb58_encode, node_id_str
from avadata.decode.codec.pchain_blocks import PCHAIN_TABLE
from avadata.decode.codec.xchain import XCHAIN_TABLE
from tests.unit.codec.vectors import entries

# their key (lowercased) -> our field name (underscores removed), where the names differ
ALIASES = {
    "unsignedtx": "unsigned",
    "signatureindices": "sigindices",
    "subnetauthorization": "subnetauth",
    "disableauthorization": "disableauth",
    "stake": "stakeoutputs",
    "shares": "delegationshares",
    "validationrewardsowner": "validatorrewardsowner",
    "newowner": "owner",
    "txs": "transactions",
    "fxids": "fxids",
    "chainid": "chainid",
    "input": "input",
    "operation": "operation",
    "inputids": "utxoids",
}
# keys whose match depends on the type: the first candidate the object has
CANDIDATES = {
    "delegationrewardsowner": ("rewardsowner", "delegatorrewardsowner"),
    "nodeid": ("nodeid", "validatornodeid"),
}
META = {"_type", "_typeID"}


def _norm(key: str, fields: dict[str, Any]) -> str:
    k = key.lower().replace("_", "")
    for candidate in CANDIDATES.get(k, ()):
        if candidate in fields:
            return candidate
    return ALIASES.get(k, k)


def _fields(obj: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, _ in obj.__codec_fields__:
        value = getattr(obj, name)
        if name == "base":
            out.update(_fields(value))
        else:
            out[name.replace("_", "")] = value
    return out


def _type_name(theirs: str) -> str:
    prefix, _, name = theirs.rpartition(".")
    return {"nftfx": "Nft", "propertyfx": "Property"}.get(prefix, "") + name


def _bytes_match(expected: str, ours: bytes) -> bool:
    return expected in (
        ours.hex(),
        "0x" + ours.hex(),
        cb58_encode(ours),
        node_id_str(ours) if len(ours) == 20 else "",
    ) or (expected == "" and ours == b"")


def compare(expected: Any, ours: Any, table: TypeTable, path: str) -> None:
    if isinstance(expected, dict):
        if "_type" in expected:
            assert type(ours).__name__ == _type_name(expected["_type"]), path
            assert table.by_cls[type(ours)] == expected["_typeID"], path
        fields = _fields(ours)
        for key, value in expected.items():
            if key in META:
                continue
            name = _norm(key, fields)
            if name not in fields and isinstance(value, dict) and "_type" not in value:
                # a Go struct we store flattened (L1Validator.signer = publicKey + PoP)
                compare(value, ours, table, f"{path}.{key}")
                continue
            assert name in fields, f"{path}.{key}: not in {sorted(fields)}"
            compare(value, fields[name], table, f"{path}.{key}")
    elif isinstance(expected, list):
        assert len(expected) == len(ours), path
        for i, (e, o) in enumerate(zip(expected, ours, strict=True)):
            compare(e, o, table, f"{path}[{i}]")
    elif isinstance(ours, bytes):
        assert isinstance(expected, str) and _bytes_match(expected, ours), (path, expected)
    elif isinstance(expected, dict) or hasattr(ours, "__codec_fields__"):
        raise AssertionError(f"{path}: shape differs")
    else:
        assert ours == expected, path


CASES = [
    (f, v)
    for f in ("pchain_signed_txs.json", "pchain_unsigned_txs.json", "xchain.json",
              "cchain_atomic.json", "pchain_blocks.json")
    for v in entries(f)
    if isinstance(v.get("decoded"), dict)
]  # fmt: skip


@pytest.mark.parametrize("f, v", CASES, ids=[f"{f}:{v['name']}" for f, v in CASES])
def test_decoded_tree_matches(f: str, v: dict) -> None:
    raw = bytes.fromhex(v["hex"])
    kind = v["kind"]
    if f.startswith("pchain"):
        table = PCHAIN_TABLE
        obj: Any = {
            "signed_tx": api.decode_p_tx,
            "unsigned_tx": api.decode_p_unsigned_tx,
            "block": api.decode_p_block,
        }[kind](raw)
    elif f.startswith("xchain"):
        table = XCHAIN_TABLE
        obj = (api.decode_x_tx if kind == "signed_tx" else api.decode_x_unsigned_tx)(raw)
    else:
        table = ATOMIC_TABLE
        signed = kind == "atomic_signed_tx"
        obj = (api.decode_atomic_tx if signed else api.decode_atomic_unsigned_tx)(raw)
    compare(v["decoded"], obj, table, v["name"])


def test_cases_cover_the_vector_files() -> None:
    assert len(CASES) >= 50
