"""The rules of parameters the routes check themselves, as the OpenAPI document states them.

Stage: api. A route that checks a value in its own code (to word its 400, or because the rule
needs more than a regular expression: a CB58 or bech32 checksum) states the same rule here for
the document, so a client (or schemathesis) never reads a parameter as looser than it is.
What no schema can say (a checksum, a rule across two parameters) is said in the parameter's
description; docs/compatibility.md lists those.
"""

from __future__ import annotations

from typing import Any

_B58 = "[1-9A-HJ-NP-Za-km-z]"
# A CB58 32-byte ID (transaction, block, asset, subnet, blockchain, validation): 36 bytes with
# the checksum; the checksum itself is checked by the route.
CB58_ID = f"^{_B58}{{32,50}}$"
# A node ID: NodeID- and a CB58 20-byte ID.
NODE_ID = f"^NodeID-{_B58}{{20,40}}$"
# A bech32 address of a primary chain (optional chain prefix), or a 0x EVM address (the
# C-chain's atomic lookups).
_BECH32 = "(?:[PXCpxc]-)?[A-Za-z0-9]{1,83}1[02-9ac-hj-np-zAC-HJ-NP-Z]{38}"
_HEX = "0x[0-9a-fA-F]{40}"


def listed(element: str, most: int) -> str:
    """A pattern for 1 to `most` comma-separated `element`s."""
    return f"^{element}(?:,{element}){{0,{most - 1}}}$"


def primary_addresses(most: int) -> str:
    return listed(f"(?:{_BECH32}|{_HEX})", most)


def evm_addresses() -> str:
    """Comma-separated 0x addresses, any number of them."""
    return f"^{_HEX}(?:,{_HEX})*$"


def one_of(values: Any, *, optional: bool = False) -> dict[str, Any]:
    """`json_schema_extra` of a string parameter the route checks against `values` itself."""
    listed_values = [str(v) for v in values]
    if optional:
        return {"anyOf": [{"type": "string", "enum": listed_values}, {"type": "null"}]}
    return {"enum": listed_values}
