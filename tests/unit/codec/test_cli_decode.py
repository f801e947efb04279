"""`avadata decode`: JSON on stdout with exit 0; one stderr line with the offset, exit 1."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from avadata.cli.main import app
from avadata.decode.codec import api
from tests.unit.codec.vectors import entries

BLOCK = entries("pchain_blocks.json")[0]
P_TX = next(v for v in entries("pchain_signed_txs.json") if v["tx_type"] == "BaseTx")
X_TX = entries("xchain.json")[0]
C_TX = entries("cchain_atomic.json")[0]
UTXO = entries("utxos.json")[0]
PROPOSER = entries("proposervm_blocks.json")[0]


class Result:
    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def run(*args: str) -> Result:
    """In-process (fast); test_real_process_has_no_traceback covers a real process."""
    res = CliRunner().invoke(app, ["decode", *args])
    return Result(res.exit_code, res.stdout, res.stderr)


def test_real_process_has_no_traceback() -> None:
    res = subprocess.run(
        [sys.executable, "-m", "avadata", "decode", "tx", "--chain", "p", "00000000"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 1 and res.stdout == ""
    assert res.stderr.strip() == "error: at byte 2: expected uint32 (4 bytes), 2 left"


def ok(*args: str) -> dict:
    res = run(*args)
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    out: dict = json.loads(res.stdout)
    return out


def test_block_with_api_checksum_gives_stated_ids() -> None:
    out = ok("block", "--chain", "p", BLOCK["api_hex_with_checksum"])
    assert out["blockId"] == BLOCK["stated_block_id"]
    assert [t["txHash"] for t in out["transactions"]] == [
        c["tx_id"] for c in BLOCK["contained_txs"]
    ]
    assert out["height"] == BLOCK["expected_from_source_json"]["height"]


def test_txs_of_each_chain() -> None:
    assert ok("tx", "--chain", "p", P_TX["hex"])["txHash"] == P_TX["tx_id"]
    assert ok("tx", "--chain", "x", "0x" + X_TX["hex"])["txHash"] == X_TX["stated_tx_id"]
    c = ok("tx", "--chain", "c", C_TX["hex"])
    assert c["txHash"] == C_TX["stated_tx_id"] and c["txType"] == "ImportTx"


def test_unsigned_tx_and_utxo() -> None:
    unsigned_hex = P_TX["hex"][: 2 * P_TX["unsigned_bytes_length"]]
    assert ok("unsigned-tx", "--chain", "p", unsigned_hex)["txType"] == "BaseTx"
    u = ok("utxo", UTXO["api_hex"])
    assert u["utxoId"] == UTXO["utxo_id_for_inputs"]


def test_proposervm_block_id() -> None:
    # The parse_test.go wrapper holds a 1-byte inner block, which is no P-chain block,
    # so the command must refuse it with an offset rather than print half a block.
    res = run("block", "--chain", "p", PROPOSER["hex"])
    assert res.returncode == 1 and "at byte" in res.stderr


@pytest.mark.parametrize(
    "args, offset",
    [
        (["tx", "--chain", "p", "0000000000220000"], 6),  # truncated network ID
        (["tx", "--chain", "p", "0001"], 0),  # codec version 1
        (["tx", "--chain", "p", "0000000000ff"], 2),  # unknown/short type ID
        (["tx", "--chain", "p", P_TX["hex"] + "00"], P_TX["byte_length"]),  # trailing byte
        (["unsigned-tx", "--chain", "x", "00000000000000000000ffffffff"], 10),
        (["block", "--chain", "x", "zz"], 0),
        (["utxo", "0000"], 2),
    ],
)
def test_bad_input_is_one_line_with_offset(args: list[str], offset: int) -> None:
    res = run(*args)
    assert res.returncode == 1
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert "Traceback" not in res.stderr
    assert f"at byte {offset}:" in lines[0] and "expected" in lines[0]


def test_cchain_block_gives_eth_hash_and_atomic_tx_ids() -> None:
    v = next(b for b in entries("cchain_atomic.json", "blocks") if "ext_data_atomic_tx_id" in b)
    out = ok("block", "--chain", "c", v["rlp_hex"])
    assert out["blockId"] == v["stated_block_hash"]
    assert [t["txHash"] for t in out["atomicTransactions"]] == [v["ext_data_atomic_tx_id"]]


def test_xchain_vertex_block() -> None:
    v = entries("xchain.json", "vertices")[0]
    out = ok("block", "--chain", "x", v["hex"])
    assert out["blockId"] == v["vertex_id"] and out["blockType"] == "Vertex"
    assert out["height"] == v["decoded"]["height"]


def test_wrapped_pchain_block() -> None:
    """A real platformvm block inside an unsigned proposervm wrapper: the inner blockId is
    the stated one; the container ID is sha256 of the wrapper without its signature field."""
    import hashlib

    from avadata.decode.codec import proposervm
    from avadata.decode.codec.ids import cb58_encode

    inner = bytes.fromhex(BLOCK["hex"])
    wrapper = proposervm.StatelessBlock(
        parent_id=bytes(32), timestamp=1, p_chain_height=2, certificate=b"", block=inner,
        signature=b"",
    )  # fmt: skip
    raw = proposervm.encode_proposervm(wrapper)
    out = ok("block", "--chain", "p", raw.hex())
    assert out["block"]["blockId"] == BLOCK["stated_block_id"]
    assert out["blockId"] == cb58_encode(hashlib.sha256(raw[:-4]).digest())
    assert out["proposervm"]["pChainHeight"] == 2


def test_wrapped_xchain_standard_block_carries_the_stated_tx_id() -> None:
    """No real X-chain StandardBlock bytes exist in the vectors; one built around a real
    avm tx must still show that tx's stated ID (embedded without its codec version)."""
    from avadata.decode.codec import proposervm
    from avadata.decode.codec.xchain import StandardBlock

    tx = api.decode_x_tx(bytes.fromhex(X_TX["hex"]))
    block = StandardBlock(
        parent_id=bytes(32), height=9, time=1_700_000_000, merkle_root=bytes(32),
        transactions=(tx,),
    )  # fmt: skip
    inner = api.encode_x_block(block)
    assert inner[6 + 32 + 8 + 8 + 32 + 4 :] == bytes.fromhex(X_TX["hex"])[2:]
    wrapper = proposervm.StatelessBlock(
        parent_id=bytes(32), timestamp=1, p_chain_height=2, certificate=b"", block=inner,
        signature=b"",
    )  # fmt: skip
    out = ok("block", "--chain", "x", proposervm.encode_proposervm(wrapper).hex())
    assert [t["txHash"] for t in out["block"]["transactions"]] == [X_TX["stated_tx_id"]]
    assert out["block"]["height"] == 9
