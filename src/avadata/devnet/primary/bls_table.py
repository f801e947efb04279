"""A fixed table of BLS keys with their proofs of possession, shared by every devnet seed.

Stage: devnet. A proof of possession costs ~0.1-0.4 s in pure Python (py_ecc), and a devnet
start needs one per validator, so the devnet does not derive BLS keys per seed: node i of a
keyring takes entry (i + seed) mod N of this table, computed once and committed as
`bls_keys.json`. The secrets are public: devnet keys only. Regenerate (and check) with

    python -m avadata.devnet.primary.bls_table --write     # or --check
"""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from pathlib import Path

from py_ecc.bls.ciphersuites import G2ProofOfPossession as Bls
from py_ecc.optimized_bls12_381.optimized_curve import curve_order

TABLE_PATH = Path(__file__).with_name("bls_keys.json")
SIZE = 40


def _secret(i: int) -> int:
    digest = hashlib.sha256(f"avadata-devnet/bls-table/{i}".encode()).digest()
    return int.from_bytes(digest, "big") % curve_order or 1


def compute(i: int) -> dict[str, str]:
    secret = _secret(i)
    return {
        "secret": hex(secret),
        "publicKey": "0x" + bytes(Bls.SkToPk(secret)).hex(),
        "proofOfPossession": "0x" + bytes(Bls.PopProve(secret)).hex(),
    }


@functools.lru_cache(maxsize=1)
def table() -> list[dict[str, str]]:
    entries: list[dict[str, str]] = json.loads(TABLE_PATH.read_text())
    return entries


def main(argv: list[str]) -> int:
    if "--write" in argv:
        TABLE_PATH.write_text(json.dumps([compute(i) for i in range(SIZE)], indent=1) + "\n")
        return 0
    if "--check" in argv:
        ok = all(compute(i) == entry for i, entry in enumerate(table())) and len(table()) == SIZE
        print("ok" if ok else "bls_keys.json does not match its derivation")
        return 0 if ok else 1
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
