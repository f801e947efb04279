"""The compiled devnet contracts (build/contracts.json) and the ABI encoding the generator needs.

Stage: devnet. Compiles on first use when the build is missing or older than the sources, so a
fresh checkout works without a separate step (scripts/setup.sh also compiles).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import rlp
from eth_abi.abi import encode
from eth_utils.crypto import keccak

from avadata.devnet.contracts import compile as solc


@cache
def artifacts() -> dict[str, dict[str, Any]]:
    if solc.is_stale():
        solc.main([])
    loaded: dict[str, dict[str, Any]] = json.loads(solc.OUT.read_text())
    return loaded


def bytecode(contract: str) -> bytes:
    """Creation code of `contract` (without constructor arguments)."""
    return bytes.fromhex(str(artifacts()[contract]["bytecode"])[2:])


@cache
def _parse(signature: str) -> tuple[bytes, list[str]]:
    name, _, rest = signature.partition("(")
    inner = rest[:-1]
    types = [t.strip() for t in inner.split(",")] if inner else []
    return keccak(text=f"{name}({','.join(types)})")[:4], types


def selector(signature: str) -> bytes:
    """The 4-byte selector of e.g. "transfer(address,uint256)" (no tuple types)."""
    return _parse(signature)[0]


def calldata(signature: str, *args: Any) -> str:
    """0x-hex calldata: selector + ABI-encoded args."""
    sel, types = _parse(signature)
    return "0x" + (sel + encode(types, list(args))).hex()


def deploy_data(contract: str, types: list[str], args: list[Any]) -> str:
    """0x-hex creation code with ABI-encoded constructor arguments appended."""
    return "0x" + (bytecode(contract) + encode(types, args)).hex()


def create_address(sender: str, nonce: int) -> str:
    """Address of a contract made by CREATE from `sender` at `nonce`: keccak(rlp([s, n]))[12:]."""
    return "0x" + keccak(rlp.encode([bytes.fromhex(sender[2:]), nonce]))[12:].hex()


def create2_address(factory: str, salt: bytes, init_code: bytes) -> str:
    """EIP-1014: keccak(0xff ++ factory ++ salt ++ keccak(init_code))[12:]."""
    digest = keccak(b"\xff" + bytes.fromhex(factory[2:]) + salt + keccak(init_code))
    return "0x" + digest[12:].hex()
