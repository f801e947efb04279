"""The supply replay behind each primary staker's potential reward: the bisection recovers
the start supply from one anchor, and on the devnet every potential reward the indexer
computes equals the one the simulator fixed when it added the staker (its own ledger)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from avadata.decode.primary.supply import SupplyEvent, replay, solve_start_supply
from avadata.indexer.primary.snapshots import snapshot_supply
from avadata.indexer.primary.supply import estimate_rewards
from avadata.store.engine import make_engine
from avadata.store.migrate import migrate
from avadata.store.schema import primary_supply

AVAX = 10**9
DAY = 86_400


def history(seed: int, n: int) -> list[SupplyEvent]:
    """Adds of mainnet-sized stakers, some of them forfeited later, one event per block."""
    rng = random.Random(seed)
    events: list[SupplyEvent] = []
    added: list[str] = []
    for height in range(1, n + 1):
        if added and rng.random() < 0.2:
            events.append(SupplyEvent("forfeit", added.pop(rng.randrange(len(added))), height))
            continue
        tx = f"tx{height}"
        duration = rng.randrange(14, 366) * DAY
        staked = rng.randrange(25, 3_000_000) * AVAX
        events.append(SupplyEvent("add", tx, height, duration, staked))
        added.append(tx)
    return events


def test_one_anchor_gives_back_every_reward() -> None:
    # Mainnet-sized numbers: 360 M AVAX at genesis, 400 stakers.
    events = history(7, 400)
    truth, _ = replay(events, 360_000_000 * AVAX)
    anchor_height = 300
    _, anchor = replay(events, 360_000_000 * AVAX, anchor_height)
    start = solve_start_supply(events, anchor, anchor_height)
    assert start == 360_000_000 * AVAX
    assert replay(events, start)[0] == truth


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, 60),
    # Real supplies: rewards are a sliver of the supply, where the supply after the history
    # grows with the start (near zero the cap on rewards makes it fall).
    start=st.integers(100_000_000 * AVAX, 700_000_000 * AVAX),
    cut=st.floats(0, 1),
)
def test_the_bisection_finds_the_least_start_that_meets_the_anchor(
    seed: int, n: int, start: int, cut: float
) -> None:
    events = history(seed, n)
    height = int(n * cut)
    _, anchor = replay(events, start, height)
    found = solve_start_supply(events, anchor, height)
    assert found is not None and found <= start
    assert replay(events, found, height)[1] == anchor
    assert found == 0 or replay(events, found - 1, height)[1] < anchor


def test_the_reference_vector_through_the_replay() -> None:
    events = [SupplyEvent("add", "a", 1, 365 * DAY, 1_000_000 * AVAX)]
    # 1 M AVAX for a year at 360 M supply earns 120,000 AVAX (node-rpc.md's vector).
    rewards, after = replay(events, 360_000_000 * AVAX)
    assert rewards == {"a": 120_000 * AVAX}
    assert solve_start_supply(events, after, 1) == 360_000_000 * AVAX
    # An anchor at a height before every event says nothing but itself.
    assert solve_start_supply(events, after, 0) == after


class _Platform:
    def __init__(self, answer: object) -> None:
        self.answer = answer

    async def call(self, method: str, params: object) -> object:
        assert method == "platform.getCurrentSupply"
        return self.answer


@pytest.mark.parametrize(
    "answer", [{}, {"supply": "12"}, {"supply": "x", "height": "1"}, {"supply": None, "height": 1}]
)
def test_a_malformed_supply_answer_leaves_no_anchor(tmp_path: Path, answer: object) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 's.db'}")
    migrate(engine)
    asyncio.run(snapshot_supply(engine, _Platform(answer)))  # type: ignore[arg-type]
    assert estimate_rewards(engine) is False  # no anchor stored
    asyncio.run(snapshot_supply(engine, _Platform({"supply": "7", "height": "3"})))  # type: ignore[arg-type]
    with engine.connect() as conn:
        assert [(int(r.supply), int(r.height)) for r in conn.execute(select(primary_supply))] == [
            (7, 3)
        ]
