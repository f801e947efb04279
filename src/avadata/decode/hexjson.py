"""JSON-RPC hex quantities and data, both directions (also used by the devnet facade)."""

from __future__ import annotations


def quantity(value: str | int | None, default: int = 0) -> int:
    """A JSON-RPC QUANTITY ("0x1a") as int; None gives `default`, an int is itself. The text
    first: nearly every value decode reads is one (a node's whole block passes here)."""
    try:
        return int(value, 16)  # type: ignore[arg-type]
    except TypeError:
        if value is None:
            return default
        if isinstance(value, int):
            return value
        raise


def optional_quantity(value: str | int | None) -> int | None:
    return None if value is None else quantity(value)


def to_quantity(n: int) -> str:
    return hex(n)


def address(value: str | None) -> str | None:
    return None if value is None else value.lower()


def data_bytes(value: str) -> bytes:
    return bytes.fromhex(value[2:] if value.startswith(("0x", "0X")) else value)
