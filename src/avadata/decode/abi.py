"""ABI decoding for the decoders, with eth-abi imported on first use.

Why a module: eth-abi brings eth-utils and pydantic, ~0.12 s of every indexer process's start
(the writer and each fetch process), while most chunks need neither a TransferBatch decoded nor
a token's metadata.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def abi_decode(types: Sequence[str], data: bytes, *, strict: bool = True) -> tuple[Any, ...]:
    """eth-abi's `decode` (it raises several unrelated exception types on bad input)."""
    from eth_abi.abi import decode

    return decode(types, data, strict=strict)


def preload() -> None:
    """Import eth-abi now: a fetch process does it while it waits for the node's first answers,
    where on first use it held up the first chunk's decoding by ~0.2 s."""
    import eth_abi.abi  # noqa: F401
