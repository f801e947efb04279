"""The chains the facade serves and how a URL segment names one of them.

Stage: devnet facade. A real node answers /ext/bc/<blockchain>/rpc where <blockchain> is the
chain's alias (C for the C-chain) or its blockchain ID; for the devnet we also accept the EVM
chain ID in decimal and the L1's name, so tests and tools can address a chain without knowing
its CB58 ID. Later issues add the CB58 blockchain IDs as aliases and local handlers for the
subnet-EVM extras (eth_getChainConfig, ...) without touching the router.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

# A JSON-RPC method answered by the facade itself: params in, result out (raise RpcFault for
# an error answer).
LocalHandler = Callable[[Any], Awaitable[Any]]


class RpcFault(Exception):
    """Raised by a LocalHandler to answer with a JSON-RPC error object."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


@dataclass(frozen=True)
class ChainRoute:
    """One EVM chain behind the facade.

    `name`: "C" for the C-chain, the L1's name otherwise. `upstream`: the anvil's JSON-RPC URL.
    `local_methods`: methods answered here instead of upstream (none yet).
    """

    name: str
    chain_id: int
    upstream: str
    aliases: tuple[str, ...] = ()
    local_methods: Mapping[str, LocalHandler] = field(default_factory=dict)

    def keys(self) -> list[str]:
        """Every URL segment that names this chain."""
        return [self.name, str(self.chain_id), *self.aliases]


class ChainTable:
    """URL segment -> ChainRoute. Invariant: no segment names two chains."""

    def __init__(self, chains: Sequence[ChainRoute]) -> None:
        self.chains = list(chains)
        self._by_key: dict[str, ChainRoute] = {}
        for chain in chains:
            for key in chain.keys():
                other = self._by_key.get(key)
                if other is not None and other is not chain:
                    raise ValueError(f"{key!r} names both {other.name} and {chain.name}")
                self._by_key[key] = chain

    def find(self, segment: str) -> ChainRoute | None:
        return self._by_key.get(segment)
