"""Deterministic keys of the simulated primary network: secp256k1 users, BLS node keys, NodeIDs.

Stage: devnet (P/X simulators). Every key is derived from (seed, label), so the same seed gives
the same addresses, node IDs and signatures on every run.

secp256k1: avalanchego signs sha256(unsigned tx bytes) with a recoverable signature
[r(32) | s(32) | v(1)], low-S (libsecp256k1 always produces low-S). An address is
ripemd160(sha256(compressed pubkey)); the C-chain address of the same key is keccak-based.

BLS (py_ecc, pure Python, 0.1-0.4 s per signature): avalanchego's proof of possession signs
the 48-byte compressed public key under the ciphersuite
BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_ and warp messages under
BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_, which are exactly py_ecc's G2ProofOfPossession
PopProve and Sign. Node keys come from a precomputed table with their proofs of possession
(bls_table.py); warp signatures are computed, and memoised per process.
"""

from __future__ import annotations

import functools
import hashlib

import coincurve
from eth_typing import BLSPubkey, BLSSignature
from py_ecc.bls.ciphersuites import G2ProofOfPossession as Bls
from py_ecc.bls.g2_primitives import pubkey_to_G1
from py_ecc.optimized_bls12_381.optimized_curve import curve_order, normalize

from avadata.decode.codec.ids import (
    address_from_pubkey,
    eth_address_from_pubkey,
    node_id_str,
    ripemd160,
    sha256,
)
from avadata.devnet.primary import bls_table


def derive(seed: int, label: str) -> bytes:
    """32 pseudo-random bytes for (seed, label): the root of every devnet key."""
    return hashlib.sha256(f"avadata-devnet/{seed}/{label}".encode()).digest()


class SecpKey:
    """A secp256k1 key with its P/X address (20 bytes) and its C-chain EVM address."""

    __slots__ = ("secret", "public", "address", "eth_address", "_key")

    def __init__(self, secret: bytes) -> None:
        self.secret = secret
        self._key = coincurve.PrivateKey(secret)
        self.public = bytes(self._key.public_key.format(compressed=True))
        self.address = address_from_pubkey(self.public)
        self.eth_address = eth_address_from_pubkey(self.public)

    @classmethod
    def derived(cls, seed: int, label: str) -> SecpKey:
        return cls(derive(seed, "secp256k1/" + label))

    def sign_digest(self, digest: bytes) -> bytes:
        """65-byte [r | s | v] recoverable signature of a 32-byte digest (already hashed)."""
        return bytes(self._key.sign_recoverable(digest, hasher=None))

    def sign(self, message: bytes) -> bytes:
        """avalanchego's tx signature: over sha256(message)."""
        return self.sign_digest(sha256(message))

    def __reduce__(self) -> tuple[type[SecpKey], tuple[bytes]]:
        return (SecpKey, (self.secret,))


@functools.lru_cache(maxsize=512)
def _bls_public(secret: int) -> bytes:
    return bytes(Bls.SkToPk(secret))


@functools.lru_cache(maxsize=512)
def _bls_pop(secret: int) -> bytes:
    return bytes(Bls.PopProve(secret))


@functools.lru_cache(maxsize=4096)
def _bls_sign(secret: int, message: bytes) -> bytes:
    return bytes(Bls.Sign(secret, message))


class BlsKey:
    """A BLS12-381 key: 48-byte compressed G1 public key, 96-byte G2 signatures."""

    __slots__ = ("secret", "_public", "_pop")

    def __init__(self, secret: int, public: bytes | None = None, pop: bytes | None = None) -> None:
        if not 0 < secret < curve_order:
            raise ValueError("BLS secret out of range")
        self.secret = secret
        self._public = public
        self._pop = pop

    @classmethod
    def derived(cls, seed: int, label: str) -> BlsKey:
        value = int.from_bytes(derive(seed, "bls/" + label), "big") % curve_order
        return cls(value or 1)

    @classmethod
    def from_table(cls, index: int) -> BlsKey:
        """Entry `index` (mod the table size) of the precomputed table (bls_table.py)."""
        entries = bls_table.table()
        e = entries[index % len(entries)]
        return cls(
            int(e["secret"], 16),
            bytes.fromhex(e["publicKey"][2:]),
            bytes.fromhex(e["proofOfPossession"][2:]),
        )

    @property
    def public_key(self) -> bytes:
        return self._public if self._public is not None else _bls_public(self.secret)

    @property
    def proof_of_possession(self) -> bytes:
        return self._pop if self._pop is not None else _bls_pop(self.secret)

    def sign(self, message: bytes) -> bytes:
        return _bls_sign(self.secret, message)

    @property
    def uncompressed_public_key(self) -> bytes:
        """x || y (48 bytes each, big-endian): the order avalanchego's canonical warp
        validator set sorts by (bls.PublicKeyToUncompressedBytes)."""
        x, y = normalize(pubkey_to_G1(BLSPubkey(self.public_key)))
        return int(x.n).to_bytes(48, "big") + int(y.n).to_bytes(48, "big")

    def __reduce__(self) -> tuple[type[BlsKey], tuple[int, bytes | None, bytes | None]]:
        return (BlsKey, (self.secret, self._public, self._pop))


def aggregate_signatures(signatures: list[bytes]) -> bytes:
    return bytes(Bls.Aggregate([BLSSignature(s) for s in signatures]))


def certificate(seed: int, label: str) -> bytes:
    """The devnet's stand-in for a node's DER staking certificate (it has no TLS keys)."""
    return derive(seed, "node/" + label)


def node_id(seed: int, label: str) -> bytes:
    """A 20-byte NodeID: as avalanchego's, ripemd160(sha256(the certificate))."""
    return ripemd160(sha256(certificate(seed, label)))


class Node:
    """A simulated node: its NodeID (derived from the seed) and its BLS signer (entry
    `index + seed` of the precomputed table, so every node of one keyring has its own)."""

    __slots__ = ("node_id", "bls", "label", "seed", "index")

    def __init__(self, seed: int, index: int) -> None:
        self.seed = seed
        self.index = index
        self.label = str(index)
        self.node_id = node_id(seed, self.label)
        self.bls = BlsKey.from_table(index + seed)

    @property
    def name(self) -> str:
        return node_id_str(self.node_id)

    @property
    def certificate(self) -> bytes:
        """What it signs its proposervm blocks with (its NodeID hashes it)."""
        return certificate(self.seed, self.label)

    def __reduce__(self) -> tuple[type[Node], tuple[int, int]]:
        return (Node, (self.seed, self.index))


class Keyring:
    """Every key of one seed: `users` (secp256k1), `nodes` (NodeID + BLS), found by address."""

    def __init__(self, seed: int, users: int = 24, nodes: int = 16) -> None:
        self.seed = seed
        self.users = [SecpKey.derived(seed, f"user/{i}") for i in range(users)]
        self.nodes = [Node(seed, i) for i in range(nodes)]
        self._by_address = {k.address: k for k in self.users}
        self._by_eth = {k.eth_address: k for k in self.users}

    def key_for(self, address: bytes) -> SecpKey:
        return self._by_address[address]

    def key_for_eth(self, eth_address: str) -> SecpKey:
        return self._by_eth[eth_address.lower()]

    def add(self, key: SecpKey) -> SecpKey:
        self._by_address[key.address] = key
        self._by_eth[key.eth_address] = key
        return key
