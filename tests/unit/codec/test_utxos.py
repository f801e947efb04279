"""consumed/produced/exported UTXOs of vector txs follow avalanchego's index rules (cited in
utxos.py): base outputs 0..n-1, P/X exports from len(Outs), coreth exports from 0, X asset
creation and operations appended after the base outputs."""

from __future__ import annotations

from avadata.decode.codec import api, utxos
from avadata.decode.codec.atomic import ATOMIC_TABLE
from avadata.decode.codec.ids import sha256
from avadata.decode.codec.pchain_blocks import PCHAIN_TABLE
from avadata.decode.codec.xchain import XCHAIN_TABLE
from avadata.decode.codec.xchain_fx import NftMintOperation, NftTransferOutput
from tests.unit.codec.vectors import entries


def _p(tx_type: str) -> dict:
    return next(v for v in entries("pchain_signed_txs.json") if v["tx_type"] == tx_type)


def test_pchain_export_indices_follow_the_base_outputs() -> None:
    tx = api.decode_p_tx(bytes.fromhex(_p("ExportTx")["hex"]))
    tx_id = tx.id_bytes(PCHAIN_TABLE)
    n_out = len(tx.unsigned.base.outputs)  # type: ignore[attr-defined]
    made = utxos.produced(tx.unsigned, tx_id)
    sent = utxos.exported(tx.unsigned, tx_id)
    assert [u.output_index for u in made] == list(range(n_out))
    assert [u.output_index for u in sent] == [n_out + i for i in range(len(sent))] and sent
    for u in made + sent:  # each is a standalone UTXO the P-chain codec reads back
        assert api.decode_utxo(api.encode_utxo(u)) == u


def test_pchain_import_consumes_base_and_imported_inputs() -> None:
    tx = api.decode_p_tx(bytes.fromhex(_p("ImportTx")["hex"]))
    refs = utxos.consumed(tx.unsigned)
    imported = tx.unsigned.imported_inputs  # type: ignore[attr-defined]
    assert [r.imported for r in refs].count(True) == len(imported) > 0
    for r in refs:
        assert r.utxo_id == sha256(r.output_index.to_bytes(8, "big") + r.tx_id)


def test_cchain_export_indices_start_at_zero_and_imports_create_nothing_there() -> None:
    for v in entries("cchain_atomic.json"):
        if v["kind"] != "atomic_signed_tx":
            continue
        tx = api.decode_atomic_tx(bytes.fromhex(v["hex"]))
        tx_id = tx.id_bytes(ATOMIC_TABLE)
        assert utxos.produced(tx.unsigned, tx_id) == []
        sent = utxos.exported(tx.unsigned, tx_id)
        assert [u.output_index for u in sent] == list(range(len(sent)))


def test_xchain_nft_mint_appends_one_utxo_per_owner() -> None:
    v = next(x for x in entries("xchain.json") if x["tx_type"] == "OperationTx")
    utx = api.decode_x_unsigned_tx(bytes.fromhex(v["hex"]))
    tx_id = sha256(b"any tx id")
    made = utxos.produced(utx, tx_id)
    n_base = len(utx.base.outputs)  # type: ignore[attr-defined]
    mints = [op.operation for op in utx.operations]  # type: ignore[attr-defined]
    assert all(isinstance(m, NftMintOperation) for m in mints)
    n_owners = sum(len(m.outputs) for m in mints)  # type: ignore[attr-defined]
    assert len(made) == n_base + n_owners
    assert [u.output_index for u in made] == list(range(len(made)))
    for u in made[n_base:]:
        assert isinstance(u.output, NftTransferOutput)
        assert api.decode_utxo(api.encode_utxo(u, XCHAIN_TABLE), XCHAIN_TABLE) == u


def test_xchain_create_asset_outputs_are_of_the_new_asset() -> None:
    v = next(x for x in entries("xchain.json") if x["tx_type"] == "CreateAssetTx")
    tx = api.decode_x_tx(bytes.fromhex(v["hex"]))
    tx_id = tx.id_bytes(XCHAIN_TABLE)
    made = utxos.produced(tx.unsigned, tx_id)
    n_base = len(tx.unsigned.base.outputs)  # type: ignore[attr-defined]
    states = tx.unsigned.initial_states  # type: ignore[attr-defined]
    assert len(made) == n_base + sum(len(s.outputs) for s in states)
    assert all(u.asset_id == tx_id for u in made[n_base:])
