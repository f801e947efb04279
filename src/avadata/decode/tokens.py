"""Token metadata from raw eth_call results, pure: name/symbol as ABI strings, else bytes32.

A failed call, or bytes that are neither form, gives None: nothing is invented.
"""

from __future__ import annotations

from avadata.decode.abi import string
from avadata.records import TokenInfo, TokenStandard


def _bytes(result: str | None) -> bytes:
    if not isinstance(result, str) or not result.startswith("0x"):
        return b""
    try:
        return bytes.fromhex(result[2:])
    except ValueError:
        return b""


def text(result: str | None) -> str | None:
    """`result` is the eth_call's hex answer, None when the call failed."""
    raw = _bytes(result)
    if not raw:
        return None
    if len(raw) >= 64:
        try:
            return string(raw)
        except ValueError:  # not ABI string: try the bytes32 form below
            pass
    if len(raw) == 32:
        stripped = raw.rstrip(b"\x00")
        try:
            decoded = stripped.decode("utf-8")
        except UnicodeDecodeError:
            return None
        return decoded if decoded.isprintable() else None
    return None


def number(result: str | None) -> int | None:
    raw = _bytes(result)
    if len(raw) != 32:
        return None
    value = int.from_bytes(raw, "big")
    return value if value <= 255 else None


def token_info(
    chain_id: int, address: str, standard: TokenStandard, results: list[str | None]
) -> TokenInfo:
    name, symbol, decimals = results
    return TokenInfo(
        chain_id=chain_id,
        address=address,
        standard=standard,
        name=text(name),
        symbol=text(symbol),
        decimals=number(decimals) if standard is TokenStandard.ERC20 else None,
    )
