"""A chain's identity: what the node (or the operator's chains file) says a chain is.

Every stage speaks it: the indexer gathers it (indexer/identity.py), the store keeps it in the
`chains` row (store/identity.py), the API shows it. `None` means "not said": it never
overwrites what the store already holds.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any


@dataclass(frozen=True, slots=True)
class NativeToken:
    name: str | None = None
    symbol: str | None = None
    decimals: int | None = None
    logo: str | None = None


@dataclass(frozen=True, slots=True)
class ChainIdentity:
    """One EVM chain. `chain_id` is its EVM chain ID (the store's key); `blockchain_id` and
    `subnet_id` are CB58 (the primary network's subnet for the C-chain)."""

    chain_id: int
    network_id: int | None = None
    blockchain_id: str | None = None
    subnet_id: str | None = None
    name: str | None = None
    vm_name: str | None = None
    token: NativeToken = NativeToken()
    explorer_url: str | None = None
    rpc_url: str | None = None

    def merged(self, other: ChainIdentity) -> ChainIdentity:
        """This identity with what `other` says and this one does not (same chain)."""
        changes: dict[str, Any] = {}
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            if f.name == "token":
                changes["token"] = _merged_token(mine, theirs)
            elif mine is None and theirs is not None:
                changes[f.name] = theirs
        return replace(self, **changes)


def _merged_token(mine: NativeToken, theirs: NativeToken) -> NativeToken:
    return NativeToken(
        *(
            getattr(mine, f.name) if getattr(mine, f.name) is not None else getattr(theirs, f.name)
            for f in fields(NativeToken)
        )
    )
