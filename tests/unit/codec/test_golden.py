"""Annotated golden bytes, one field per line (golden/*.golden), one per tx type.

Each file names the vector it lists. Its hex lines, joined, must be the vector's bytes; our
field walk over those bytes must reproduce every line (same split, same field names); and
the bytes must decode and re-encode unchanged.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from avadata.decode.codec import api, pchain
from avadata.decode.codec.atomic import ATOMIC_TABLE, AtomicTx
from avadata.decode.codec.fields import Iface, Inline, Kind, TypeTable
from avadata.decode.codec.pchain import PChainTx
from avadata.decode.codec.pchain_blocks import PCHAIN_TABLE
from avadata.decode.codec.xchain import XCHAIN_TABLE, XChainTx, XUnsignedTx
from tests.unit.codec.trace import parse, trace
from tests.unit.codec.vectors import entries

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.golden"))
SETUP: dict[str, tuple[TypeTable, Kind, Kind]] = {
    "p": (PCHAIN_TABLE, Inline(PChainTx), Inline(PChainTx)),
    "x": (XCHAIN_TABLE, Inline(XChainTx), Iface(XUnsignedTx)),
    "c": (ATOMIC_TABLE, Inline(AtomicTx), Inline(AtomicTx)),
}


def _vector(header: str) -> dict:
    fname, _, name = header.lstrip("# ").partition(" :: ")
    return next(v for v in entries(fname) if v["name"] == name.strip())


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_golden(path: Path) -> None:
    text = path.read_text()
    header, _, body = text.partition("\n")
    v = _vector(header)
    lines = parse(body)
    raw = bytes.fromhex("".join(h for h, _ in lines))
    assert raw.hex() == v["hex"]
    table, signed, unsigned = SETUP[path.stem[0]]
    top = signed if v["kind"].endswith("signed_tx") and "unsigned" not in v["kind"] else unsigned
    assert trace(raw, top, table) == lines
    decode = {"p": api.decode_p_tx, "x": api.decode_x_tx, "c": api.decode_atomic_tx}
    if top is signed:
        tx = decode[path.stem[0]](raw)
        assert type(tx.unsigned).__name__ == v["tx_type"]
    else:
        assert api.encode_x_unsigned_tx(api.decode_x_unsigned_tx(raw)) == raw


def test_one_golden_file_per_tx_type() -> None:
    names = {p.stem for p in GOLDEN}
    p_types = {f"p_{_snake(n)}" for n in pchain.TX_CLASSES}
    x_types = {
        f"x_{_snake(n)}" for n in ("BaseTx", "CreateAssetTx", "OperationTx", "ImportTx", "ExportTx")
    }
    c_types = {"c_unsigned_import_tx", "c_unsigned_export_tx"}
    assert names == p_types | x_types | c_types


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() and i else c.lower() for i, c in enumerate(name))
