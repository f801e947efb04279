"""IDs and their text forms: CB58, checksummed hex, NodeIDs, bech32 addresses, UTXO IDs.

CB58 = base58(bytes || sha256(bytes)[-4:]) — the *last* four bytes of a *single* sha256, unlike
Bitcoin's base58check. Addresses are ripemd160(sha256(compressed secp256k1 pubkey)).
"""

from __future__ import annotations

import hashlib
import struct

import base58
import bech32
from Crypto.Hash import RIPEMD160
from eth_hash.auto import keccak

from avadata.decode.codec.reader import DecodeError

EMPTY_ID = bytes(32)
HRP_BY_NETWORK: dict[int, str] = {
    1: "avax",
    2: "cascade",
    3: "denali",
    4: "everest",
    5: "fuji",
    10: "testing",
    12345: "local",
}


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def cb58_encode(data: bytes) -> str:
    return base58.b58encode(data + sha256(data)[-4:]).decode("ascii")


def cb58_decode(text: str) -> bytes:
    try:
        raw = base58.b58decode(text)
    except ValueError as e:
        raise DecodeError(0, f"base58 text ({e})") from None
    if len(raw) < 4:
        raise DecodeError(0, "CB58 with a 4-byte checksum")
    data, check = raw[:-4], raw[-4:]
    if sha256(data)[-4:] != check:
        raise DecodeError(len(data), "a valid CB58 checksum")
    return data


def id_to_str(data: bytes) -> str:
    return cb58_encode(data)


def node_id_str(data: bytes) -> str:
    return "NodeID-" + cb58_encode(data)


def parse_node_id(text: str) -> bytes:
    if not text.startswith("NodeID-"):
        raise DecodeError(0, "a 'NodeID-' prefix")
    return cb58_decode(text[len("NodeID-") :])


def hex_with_checksum(data: bytes) -> str:
    """The node APIs' "hex" encoding: 0x + hex(bytes || sha256(bytes)[-4:])."""
    return "0x" + (data + sha256(data)[-4:]).hex()


def parse_hex(text: str) -> bytes:
    """Hex from a person or script: `0x` optional. A trailing API checksum is stripped if valid."""
    t = text.strip()
    if t[:2] in ("0x", "0X"):
        t = t[2:]
    try:
        raw = bytes.fromhex(t)
    except ValueError:
        bad = next((i for i, c in enumerate(t) if c not in "0123456789abcdefABCDEF"), len(t))
        raise DecodeError(bad // 2, "hex digits (an even number of them)") from None
    return raw


def strip_checksum(raw: bytes) -> bytes | None:
    """The payload if `raw` ends with its own 4-byte sha256 checksum, else None."""
    if len(raw) >= 4 and sha256(raw[:-4])[-4:] == raw[-4:]:
        return raw[:-4]
    return None


def hrp_for_network(network_id: int) -> str:
    return HRP_BY_NETWORK.get(network_id, "custom")


def bech32_address(short_id: bytes, hrp: str, chain: str | None = None) -> str:
    """BIP-173 bech32 (not bech32m) of the 20 address bytes, with an optional `X-`/`P-`/`C-`."""
    five = bech32.convertbits(list(short_id), 8, 5, True)
    assert five is not None
    text = bech32.bech32_encode(hrp, five)
    return f"{chain}-{text}" if chain else text


def parse_bech32_address(text: str) -> tuple[str | None, str, bytes]:
    """(chain alias or None, hrp, address bytes). Payload length is not enforced, as in Go."""
    chain, _, rest = text.rpartition("-")
    hrp, five = bech32.bech32_decode(rest)
    if hrp is None or five is None:
        raise DecodeError(0, "a valid bech32 address")
    data = bech32.convertbits(five, 5, 8, False)
    if data is None:
        raise DecodeError(0, "bech32 data that regroups into bytes")
    return (chain or None), hrp, bytes(data)


def ripemd160(data: bytes) -> bytes:
    return RIPEMD160.new(data).digest()


def address_from_pubkey(pubkey: bytes) -> bytes:
    """ShortID of a secp256k1 key (any SEC1 form); hashed in its 33-byte compressed form."""
    import coincurve

    compressed = coincurve.PublicKey(pubkey).format(compressed=True)
    return ripemd160(sha256(compressed))


def eth_address_from_pubkey(pubkey: bytes) -> str:
    """C-chain EVM address: last 20 bytes of keccak256(uncompressed key without 0x04)."""
    import coincurve

    raw = coincurve.PublicKey(pubkey).format(compressed=False)[1:]
    return "0x" + keccak(raw)[-20:].hex()


def recover_pubkey(signature: bytes, message_hash: bytes) -> bytes:
    """Compressed pubkey recovered from a 65-byte [r|s|v] signature over a 32-byte hash."""
    import coincurve

    key = coincurve.PublicKey.from_signature_and_message(signature, message_hash, hasher=None)
    return bytes(key.format(compressed=True))


def utxo_id(tx_id: bytes, output_index: int) -> bytes:
    """Shared-memory UTXO ID: sha256(uint64_be(outputIndex) || txID) (ids.ID.Prefix)."""
    return sha256(struct.pack(">Q", output_index) + tx_id)


def vm_id(name: str) -> bytes:
    """VM and fx IDs are their ASCII names right-padded with zeros to 32 bytes."""
    raw = name.encode("ascii")
    if len(raw) > 32:
        raise ValueError(f"VM name longer than 32 bytes: {name}")
    return raw.ljust(32, b"\0")
