"""Random objects from the codec's field declarations, drawn with a seeded `random.Random`.

Used for the differential run against avalanchejs, which checks more than our codec does:
BLS keys must be curve points with a valid proof of possession (so we draw them from a pool
of real pairs found in the vectors), and it knows no nftfx/propertyfx types.
"""

from __future__ import annotations

import random
import string
from typing import Any

from avadata.decode.codec import fields as f
from avadata.decode.codec import pchain
from avadata.decode.codec.components import ProofOfPossession
from avadata.decode.codec.fields import Fixed, Iface, Inline, Kind, ListOf, TypeTable
from avadata.decode.codec.xchain_fx import FX_CLASSES

AVALANCHEJS_UNSUPPORTED = frozenset(FX_CLASSES.values())
_BITS = {id(f.U8): 8, id(f.U16): 16, id(f.U32): 32, id(f.U64): 64}


class RandomBuilder:
    def __init__(self, rng: random.Random, table: TypeTable, bls_pool: list[tuple[bytes, bytes]]):
        self.rng = rng
        self.table = table
        self.bls_pool = bls_pool

    def _int(self, bits: int) -> int:
        r = self.rng.random()
        if r < 0.1:
            return 0
        if r < 0.2:
            return 2**bits - 1
        return self.rng.getrandbits(bits)

    def kind(self, kind: Kind, depth: int) -> Any:
        rng = self.rng
        if id(kind) in _BITS:
            return self._int(_BITS[id(kind)])
        if kind is f.I64:
            return self._int(64) - 2**63
        if kind is f.BOOL:
            return rng.random() < 0.5
        if kind is f.VAR_BYTES:
            return rng.randbytes(rng.randint(0, 40))
        if kind is f.STR:
            return "".join(rng.choices(string.printable[:94], k=rng.randint(0, 20)))
        if kind is f.BLS_SIG:
            return rng.choice(self.bls_pool)[1]
        if kind is f.BLS_PUBKEY:
            return rng.choice(self.bls_pool)[0]
        if isinstance(kind, Fixed):
            return rng.randbytes(kind.min_size)
        if isinstance(kind, ListOf):
            return tuple(self.kind(kind.elem, depth + 1) for _ in range(rng.randint(0, 3)))
        if isinstance(kind, Inline):
            return self.struct(kind.cls, depth + 1)
        if isinstance(kind, Iface):
            classes = [
                c
                for c in self.table.by_id.values()
                if issubclass(c, kind.role) and c not in AVALANCHEJS_UNSUPPORTED
            ]
            classes.sort(key=lambda c: self.table.by_cls[c])
            if depth > 3:
                classes = [
                    c
                    for c in classes
                    if not any(isinstance(k, Iface) for _, k in c.__codec_fields__)
                ] or classes[:1]
            return self.struct(rng.choice(classes), depth + 1)
        raise TypeError(f"no generator for {kind!r}")

    def struct(self, cls: type, depth: int = 0) -> Any:
        values = {name: self.kind(kind, depth) for name, kind in cls.__codec_fields__}  # type: ignore[attr-defined]
        if cls in (ProofOfPossession, pchain.L1Validator):
            # a public key and its own proof of possession, or avalanchejs refuses the pair
            pk, pop = self.rng.choice(self.bls_pool)
            values["public_key"], values["proof_of_possession"] = pk, pop
        if cls is pchain.AddAutoRenewedValidatorTx:
            # avalanchejs refuses an empty signer here (a semantic rule, not a codec one)
            values["signer"] = self.struct(ProofOfPossession, depth + 1)
            # Go has []byte (verified to be 20 bytes); avalanchejs models a fixed NodeId and
            # left-pads shorter values, so only 20-byte IDs compare equal
            values["validator_node_id"] = self.rng.randbytes(20)
        return cls(**values)
