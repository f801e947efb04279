"""Test kit for the node-side tests: a simulated primary-network history, built once.

The C-chain block times are synthetic here (one block every 3.3 hours over the span), so these
tests need no anvil; the facade tests use the real devnet.
"""

from __future__ import annotations

import functools

from avadata.devnet.primary.containers import Container
from avadata.devnet.primary.simulator import PrimaryConfig, PrimarySim

CONFIG = PrimaryConfig(seed=7, start=1_767_225_600, days=30, p_blocks=120, x_blocks=100)


def c_blocks(config: PrimaryConfig = CONFIG, count: int = 220) -> list[tuple[int, int]]:
    step = config.days * 86_400 // count
    return [(n, config.start + n * step) for n in range(1, count + 1)]


@functools.lru_cache(maxsize=4)
def history(config: PrimaryConfig = CONFIG) -> tuple[PrimarySim, tuple[Container, ...]]:
    sim = PrimarySim(config)
    return sim, tuple(sim.history(c_blocks(config)))
