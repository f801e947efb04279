"""A transaction's `method` (callType, methodHash, methodName) from its input, pure.

Names come from the bundled table `signatures.tsv`; selectors are computed from the texts.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from eth_hash.auto import keccak

from avadata.records import CallType

NATIVE_TRANSFER_NAME = "Native Transfer"
CONTRACT_CREATED_NAME = "Contract Created"


@cache
def signature_table() -> dict[str, str]:
    text = resources.files("avadata.decode").joinpath("signatures.tsv").read_text()
    table: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        selector = "0x" + keccak(line.encode()).hex()[:8]
        # The first text for a selector wins, so the table's order settles collisions.
        table.setdefault(selector, line)
    return table


def classify(to_address: str | None, input_data: str) -> tuple[CallType, str, str | None]:
    """(callType, methodHash, methodName) of a transaction.

    A creation has no `to`; a call with empty input is a native transfer (even to a contract:
    the hosted API names by input, not by the callee's code); anything else is a contract call.
    """
    if to_address is None:
        return CallType.CONTRACT_CREATION, "", CONTRACT_CREATED_NAME
    method = selector(input_data)
    if not method:
        return CallType.NATIVE_TRANSFER, "", NATIVE_TRANSFER_NAME
    return CallType.CONTRACT_CALL, method, signature_table().get(method)


def selector(input_data: str) -> str:
    """A call's method selector ("0x" and 4 bytes, lower case); "" for input shorter than it."""
    return input_data[:10].lower() if len(input_data) >= 10 else ""
