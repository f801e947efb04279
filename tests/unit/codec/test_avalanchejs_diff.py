"""Differential tests against @avalabs/avalanchejs 5.2.0 (tools/node_modules).

1. avalanchejs builds random signed txs of every type it knows (tools/js/random-txs.cjs);
   ours must decode each, re-encode the same bytes and compute the same tx ID.
2. We build random signed txs of every type (randgen.py); avalanchejs must parse each
   (tools/js/parse-txs.cjs), re-serialize the same bytes and compute the same ID.

AVADATA_DIFF_CASES sets the cases per tx type (default 3 here; the full run uses 1000, see
docs/codec.md). avalanchejs has no nftfx/propertyfx classes, so those are not generated.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest

from avadata.decode.codec import api, pchain, xchain
from avadata.decode.codec.atomic import ATOMIC_TABLE, AtomicTx, UnsignedExportTx, UnsignedImportTx
from avadata.decode.codec.components import ProofOfPossession
from avadata.decode.codec.fields import TypeTable
from avadata.decode.codec.pchain import PChainTx
from avadata.decode.codec.pchain_blocks import PCHAIN_TABLE
from avadata.decode.codec.xchain import XCHAIN_TABLE, XChainTx
from tests.unit.codec.randgen import RandomBuilder
from tests.unit.codec.vectors import REPO, entries

CASES = int(os.environ.get("AVADATA_DIFF_CASES", "3"))
TOOLS = REPO / "tools"
NODE = "/usr/bin/node"
DECODE = {"P": api.decode_p_tx, "X": api.decode_x_tx, "C": api.decode_atomic_tx}
ENCODE = {"P": api.encode_p_tx, "X": api.encode_x_tx, "C": api.encode_atomic_tx}
TABLES: dict[str, TypeTable] = {"P": PCHAIN_TABLE, "X": XCHAIN_TABLE, "C": ATOMIC_TABLE}
SIGNED: dict[str, type] = {"P": PChainTx, "X": XChainTx, "C": AtomicTx}
CLASSES: dict[str, list[type]] = {
    "P": list(pchain.TX_CLASSES.values()),
    "X": [
        xchain.BaseTx,
        xchain.CreateAssetTx,
        xchain.OperationTx,
        xchain.ImportTx,
        xchain.ExportTx,
    ],
    "C": [UnsignedImportTx, UnsignedExportTx],
}
# our class name -> the name inside avalanchejs's type symbol ("pvm.ImportTx", "evm.ImportTx")
JS_NAME = {
    "UnsignedImportTx": "ImportTx",
    "UnsignedExportTx": "ExportTx",
    "AddSubnetValidatorTx": "AddSubnetValidator",
    "RemoveSubnetValidatorTx": "RemoveSubnetValidator",
    "AddPermissionlessValidatorTx": "AddPermissionlessValidator",
    "AddPermissionlessDelegatorTx": "AddPermissionlessDelegator",
}


def bls_pool() -> list[tuple[bytes, bytes]]:
    """Real (public key, proof of possession) pairs from the P-chain vectors."""
    pool: list[tuple[bytes, bytes]] = []
    for v in entries("pchain_signed_txs.json"):
        u = api.decode_p_tx(bytes.fromhex(v["hex"])).unsigned
        signer = getattr(u, "signer", None)
        if isinstance(signer, ProofOfPossession):
            pool.append((signer.public_key, signer.proof_of_possession))
        for val in getattr(u, "validators", ()):
            pool.append((val.public_key, val.proof_of_possession))
    assert pool, "no BLS pairs in the vectors"
    return pool


def node(script: str, args: list[str], stdin: str | None = None) -> list[dict[str, Any]]:
    assert (TOOLS / "node_modules" / "@avalabs" / "avalanchejs").is_dir(), (
        "avalanchejs missing: run scripts/setup.sh (tools/node_modules)"
    )
    res = subprocess.run(
        [NODE, str(TOOLS / "js" / script), *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=TOOLS,
        timeout=1800,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    return [json.loads(line) for line in res.stdout.splitlines() if line.strip()]


def js_type_name(cls_name: str) -> str:
    return JS_NAME.get(cls_name, cls_name)


def test_txs_built_by_avalanchejs_decode_identically(tmp_path: Path) -> None:
    pool_file = tmp_path / "bls.json"
    pool_file.write_text(json.dumps([{"pk": pk.hex(), "pop": pop.hex()} for pk, pop in bls_pool()]))
    seed = random.randrange(2**31)
    rows = node("random-txs.cjs", [str(CASES), str(seed), str(pool_file)])
    seen: dict[tuple[str, str], int] = {}
    for row in rows:
        chain, raw = row["chain"], bytes.fromhex(row["hex"])
        tx = DECODE[chain](raw)
        assert type(tx.unsigned).__name__ == row["type"], (seed, row["type"])
        assert ENCODE[chain](tx) == raw, (seed, row["type"])
        assert tx.tx_id(TABLES[chain]) == row["id"], (seed, row["type"])
        seen[(chain, row["type"])] = seen.get((chain, row["type"]), 0) + 1
    expected = {(c, cls.__name__) for c, classes in CLASSES.items() for cls in classes}
    assert set(seen) == expected
    assert all(n == CASES for n in seen.values())


@pytest.mark.parametrize("chain", ["P", "X", "C"])
def test_txs_built_by_us_parse_identically_in_avalanchejs(chain: str) -> None:
    seed = random.randrange(2**31)
    builder = RandomBuilder(random.Random(seed), TABLES[chain], bls_pool())
    ours: list[tuple[str, bytes, str]] = []
    for cls in CLASSES[chain]:
        for _ in range(CASES):
            unsigned = builder.struct(cls)
            creds = builder.kind(SIGNED[chain].__codec_fields__[1][1], 0)  # type: ignore[attr-defined]
            tx = SIGNED[chain](unsigned=unsigned, credentials=creds)
            raw = ENCODE[chain](tx)
            ours.append((cls.__name__, raw, tx.tx_id(TABLES[chain])))
    stdin = "".join(json.dumps({"chain": chain, "hex": raw.hex()}) + "\n" for _, raw, _ in ours)
    rows = node("parse-txs.cjs", [], stdin)
    assert len(rows) == len(ours)
    for (name, raw, tx_id), row in zip(ours, rows, strict=True):
        assert row["ok"], (seed, name, row.get("error"))
        assert row["type"].split(".")[-1] == js_type_name(name), (seed, name, row["type"])
        assert row["hex"] == raw.hex(), (seed, name)
        assert row["id"] == tx_id, (seed, name)
