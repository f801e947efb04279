"""EVM input credentials carry the key their signature recovers over the unsigned tx."""

from __future__ import annotations

from avadata.decode.codec.ids import eth_address_from_pubkey, sha256
from avadata.decode.primary.credentials import utxo_credential
from avadata.devnet.primary.keys import SecpKey

KEY = SecpKey(bytes(31) + b"\x07")


def test_the_public_key_is_the_signers() -> None:
    digest = sha256(b"unsigned tx bytes")
    signature = "0x" + KEY.sign_digest(digest).hex()
    cred = utxo_credential(signature, digest)
    assert cred == {"signature": signature, "publicKey": "0x" + KEY.public.hex()}
    assert eth_address_from_pubkey(bytes.fromhex(cred["publicKey"][2:])) == KEY.eth_address


def test_a_signature_that_recovers_nothing_is_served_without_a_key() -> None:
    signature = "0x" + bytes(64).hex() + "07"
    assert utxo_credential(signature, sha256(b"x")) == {"signature": signature}
