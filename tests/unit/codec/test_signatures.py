"""secp256k1 credentials sign sha256(unsigned bytes): recovering their keys from the vectors
checks our unsigned-byte boundary, key recovery and both address derivations at once."""

from __future__ import annotations

import pytest

from avadata.decode.codec import api, ids
from avadata.decode.codec.atomic import ATOMIC_TABLE, UnsignedExportTx
from avadata.decode.codec.pchain_blocks import PCHAIN_TABLE
from tests.unit.codec.vectors import entries, load

EWOQ = next(
    k for k in load("ids_and_addresses.json")["keys_and_addresses"]["vectors"]
    if k["label"].startswith("ewoq")
)  # fmt: skip
# The fee-calculator test signs its local-network txs with the ewoq key; its Helicon txs
# (type IDs 40+) come from other fixtures with other keys.
LOCAL_SIGNED = [
    v
    for v in entries("pchain_signed_txs.json")
    if v["credential_count"]
    and v["type_id"] < 40
    and bytes.fromhex(v["hex"])[6:10] == (12345).to_bytes(4, "big")
]


def test_local_vectors_exist() -> None:
    assert len(LOCAL_SIGNED) >= 15


@pytest.mark.parametrize("v", LOCAL_SIGNED, ids=[v["name"] for v in LOCAL_SIGNED])
def test_local_network_txs_are_signed_by_the_ewoq_key(v: dict) -> None:
    tx = api.decode_p_tx(bytes.fromhex(v["hex"]))
    digest = ids.sha256(tx.unsigned_bytes(PCHAIN_TABLE))
    for cred in tx.credentials:
        for sig in cred.signatures:  # type: ignore[attr-defined]
            pub = ids.recover_pubkey(sig, digest)
            assert pub.hex() == EWOQ["compressed_pubkey_hex"]
            assert ids.address_from_pubkey(pub).hex() == EWOQ["address_hex"]


EXPORTS = [
    v for v in entries("cchain_atomic.json")
    if v["kind"] == "atomic_signed_tx" and v["tx_type"] == "UnsignedExportTx"
    and v["credential_count"]
]  # fmt: skip


@pytest.mark.parametrize("v", EXPORTS, ids=[v["name"] for v in EXPORTS])
def test_export_credentials_recover_the_evm_input_address(v: dict) -> None:
    tx = api.decode_atomic_tx(bytes.fromhex(v["hex"]))
    assert isinstance(tx.unsigned, UnsignedExportTx)
    digest = ids.sha256(tx.unsigned_bytes(ATOMIC_TABLE))
    for evm_in, cred in zip(tx.unsigned.inputs, tx.credentials, strict=True):
        pub = ids.recover_pubkey(cred.signatures[0], digest)  # type: ignore[attr-defined]
        assert ids.eth_address_from_pubkey(pub) == "0x" + evm_in.address.hex()
