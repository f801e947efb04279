"""Test kit: real anvil chains carrying the seeded traffic, as session fixtures.

`devnet_chain` (re-exported by tests/conftest.py) is the shared one: a C-chain (43113) with the
SMALL history (~300 blocks, ~3,000 transactions over 45 simulated days, 1,000 addresses).
It stays live (anvil keeps every historical state), so eth_call at past blocks works.

For another chain, make another fixture in your conftest.py or test module:

    from tests.support.devnet import seeded_chain_fixture
    l1_chain = seeded_chain_fixture(99901, dataclasses.replace(SMALL, seed=2))

Check values against the node (`rpc_url`), using `ledger` only as a second, independent
account of what was sent (see avadata.devnet.evm.ledger).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from avadata.devnet.evm.anvil import AnvilProcess
from avadata.devnet.evm.ledger import Ledger
from avadata.devnet.evm.traffic import SMALL, TrafficConfig, start_with_traffic

__all__ = ["SeededChain", "devnet_chain", "seeded_chain_fixture", "start_seeded_chain"]


@dataclass
class SeededChain:
    """One anvil with seeded history. `rpc_url` is anvil's own URL (no facade)."""

    rpc_url: str
    chain_id: int
    ledger: Ledger
    config: TrafficConfig
    anvil: AnvilProcess

    @property
    def head(self) -> int:
        """The last block the generator mined (the node's head, unless someone mined more)."""
        return self.ledger.last_block

    def stop(self) -> None:
        self.anvil.stop()


def start_seeded_chain(chain_id: int = 43113, config: TrafficConfig = SMALL) -> SeededChain:
    """Start an anvil and fill it; the caller stops it (`.stop()`)."""
    anvil, ledger = start_with_traffic(chain_id, config)
    return SeededChain(anvil.rpc_url, chain_id, ledger, config, anvil)


def seeded_chain_fixture(
    chain_id: int = 43113, config: TrafficConfig = SMALL
) -> Callable[..., Any]:
    """A session-scoped fixture yielding a SeededChain for (chain_id, config)."""

    @pytest.fixture(scope="session")
    def fixture() -> Iterator[SeededChain]:
        chain = start_seeded_chain(chain_id, config)
        try:
            yield chain
        finally:
            chain.stop()

    return fixture


devnet_chain = seeded_chain_fixture()
