"""C-chain atomic txs are linked to the 0x addresses they credit or debit."""

from __future__ import annotations

from avadata.decode.codec.atomic import EVMInput, EVMOutput, UnsignedExportTx, UnsignedImportTx
from avadata.decode.primary.txs import evm_addresses

AVAX = bytes([7]) * 32
ALICE = bytes.fromhex("8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC".lower())


def test_import_links_its_evm_outputs() -> None:
    tx = UnsignedImportTx(5, bytes(32), bytes(32), (), (EVMOutput(ALICE, 10, AVAX),))
    assert evm_addresses(tx) == ["0x8db97c7cece249c2b98bdc0226cc4c2a57bf52fc"]


def test_export_links_its_evm_inputs() -> None:
    tx = UnsignedExportTx(5, bytes(32), bytes(32), (EVMInput(ALICE, 10, AVAX, 0),), ())
    assert evm_addresses(tx) == ["0x8db97c7cece249c2b98bdc0226cc4c2a57bf52fc"]
