"""Delivery's pacing while the indexer backfills (delivery/pacing.py): on when an indexed head
moves faster than a live chain, held over the gaps between a backfill's commits, off after;
while on, messages leave at the rate set. Truth: the clock (heads given at chosen times) and
the loop's own time over real sleeps."""

from __future__ import annotations

import asyncio
import time

from avadata.delivery.pacing import BACKFILL_BLOCKS_PER_S, HOLD_S, Pacer


def test_on_for_a_backfill_held_between_commits_off_for_a_live_chain() -> None:
    p = Pacer(200.0)
    p.heads({43113: 100, "P": 7}, now=0.0)
    assert not p.on  # one reading: nothing to compare
    p.heads({43113: 101, "P": 8}, now=1.0)  # live: a block a second
    assert not p.on
    fast = 101 + int(BACKFILL_BLOCKS_PER_S * 0.2) + 50  # a chunk committed within 0.2 s
    p.heads({43113: fast, "P": 8}, now=1.2)
    assert p.on
    p.heads({43113: fast, "P": 8}, now=1.4)  # between two commits: still a backfill
    assert p.on
    p.heads({43113: fast + 1, "P": 9}, now=1.2 + HOLD_S + 0.1)
    assert not p.on
    assert not Pacer(0.0).on  # 0: never paced
    off = Pacer(0.0)
    off.heads({1: 0}, now=0.0)
    off.heads({1: 10_000}, now=0.1)
    assert not off.on


def test_paced_messages_leave_at_the_rate() -> None:
    p = Pacer(100.0)
    p.heads({1: 0}, now=time.monotonic() - 1)
    p.heads({1: 10_000})
    assert p.on

    async def send(n: int) -> float:
        start = time.monotonic()
        await asyncio.gather(*(p.wait() for _ in range(n)))
        return time.monotonic() - start

    took = asyncio.run(send(21))
    assert 0.19 <= took < 0.6  # 21 messages at 100/s: the first at once, the last 0.2 s on
    p.heads({1: 10_000}, now=time.monotonic() + HOLD_S + 1)
    # Unpaced: far from the 10 s that 1,000 paced messages take (the bound leaves room for a
    # busy machine: 0.15 s was seen under CI's load).
    assert not p.on and asyncio.run(send(1000)) < 1.0
