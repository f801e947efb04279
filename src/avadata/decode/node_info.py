"""The node's answers about itself, read: network ID, blockchains, EVM chain IDs.

Stage: decode (pure). Shapes are avalanchego's: a json.Uint32 is a decimal string (a bare
number is accepted too); a blockchain is {id, name, subnetID, vmID} in CB58.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from avadata.decode.codec.ids import cb58_encode, vm_id

# The VMs whose chains speak the EVM's JSON-RPC: coreth (the C-chain) and subnet-evm.
EVM_VM_IDS = frozenset(cb58_encode(vm_id(name)) for name in ("evm", "subnetevm"))


@dataclass(frozen=True, slots=True)
class Blockchain:
    blockchain_id: str
    name: str
    subnet_id: str
    vm_id: str

    @property
    def is_evm(self) -> bool:
        return self.vm_id in EVM_VM_IDS


def network_id(answer: Any) -> int:
    """ValueError when the answer is not a uint32."""
    raw = answer.get("networkID") if isinstance(answer, dict) else None
    value = int(raw) if isinstance(raw, (str, int)) and not isinstance(raw, bool) else -1
    if not 0 <= value < 2**32:
        raise ValueError(f"info.getNetworkID answered {answer!r}")
    return value


def blockchains(answer: Any) -> list[Blockchain]:
    rows = answer.get("blockchains") if isinstance(answer, dict) else None
    if not isinstance(rows, list):
        raise ValueError(f"platform.getBlockchains answered {answer!r}")
    out = []
    for row in rows:
        if not isinstance(row, dict):
            raise ValueError(f"platform.getBlockchains: {row!r} is not a blockchain")
        out.append(
            Blockchain(
                str(row.get("id", "")),
                str(row.get("name", "")),
                str(row.get("subnetID", "")),
                str(row.get("vmID", "")),
            )
        )
    return out


def quantity(answer: Any) -> int:
    """A hex quantity ("0xa86a")."""
    if not isinstance(answer, str) or not answer.startswith("0x"):
        raise ValueError(f"not a hex quantity: {answer!r}")
    return int(answer, 16)
