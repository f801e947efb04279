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
_NODE = f"NodeID-{_B58}{{20,40}}"
NODE_ID = f"^{_NODE}$"
# A bech32 address of a primary chain (optional chain prefix), or a 0x EVM address (the
# C-chain's atomic lookups).
_BECH32 = "(?:[PXCpxc]-)?[A-Za-z0-9]{1,83}1[02-9ac-hj-np-zAC-HJ-NP-Z]{38}"
_HEX = "0x[0-9a-fA-F]{40}"


def listed(element: str, most: int) -> str:
    """A pattern for 1 to `most` comma-separated `element`s."""
    return f"^{element}(?:,{element}){{0,{most - 1}}}$"


def primary_addresses(most: int) -> str:
    return listed(f"(?:{_BECH32}|{_HEX})", most)


def bech32_addresses(most: int) -> str:
    """1 to `most` comma-separated bech32 addresses (the P-chain's: no 0x form)."""
    return listed(_BECH32, most)


def node_ids(most: int) -> str:
    return listed(_NODE, most)


def at_most(bound: int) -> str:
    """A pattern for the decimal integers 0..`bound` (leading zeros allowed): shorter numbers,
    then those of `bound`'s length digit by digit below it, then `bound` itself."""
    digits = str(bound)
    alternatives = [f"[0-9]{{1,{len(digits) - 1}}}"] if len(digits) > 1 else []
    for i, d in enumerate(digits):
        low = 1 if i == 0 and len(digits) > 1 else 0
        if int(d) > low:
            rest = len(digits) - i - 1
            tail = f"[0-9]{{{rest}}}" if rest else ""
            alternatives.append(f"{digits[:i]}[{low}-{int(d) - 1}]{tail}")
    alternatives.append(digits)
    return f"^0*(?:{'|'.join(alternatives)})$"


# A calendar day YYYY-MM-DD of years 0001..9999 (what date.fromisoformat reads): days 29-31
# only in the months that have them, 02-29 only in leap years.
_YEAR = "(?:000[1-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-9][0-9]{3})"
_LEAP = "(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)"
ISO_DATE = (
    f"^(?:{_YEAR}-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)"
    f"|(?:0[13578]|1[02])-31)|{_LEAP}-02-29)$"
)


def evm_addresses() -> str:
    """Comma-separated 0x addresses, any number of them."""
    return f"^{_HEX}(?:,{_HEX})*$"


def one_of(values: Any, *, optional: bool = False) -> dict[str, Any]:
    """`json_schema_extra` of a string parameter the route checks against `values` itself."""
    listed_values = [str(v) for v in values]
    if optional:
        return {"anyOf": [{"type": "string", "enum": listed_values}, {"type": "null"}]}
    return {"enum": listed_values}
