"""When the simulated blocks happen: a seeded plan of block timestamps over simulated days.

Stage: devnet. Pure: a random.Random in, a list of Unix timestamps out.

The shape mimics a real chain's quiet and busy times, which the Metrics API must bucket:
several blocks in each active hour, hours with no block at all, and whole days without blocks
(never the first or the last day, so the plan still spans every requested day).

Invariant: timestamps are strictly increasing and lie in (start, start + days * 86400).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

DAY = 86_400
HOUR = 3_600
BLOCKS_PER_ACTIVE_HOUR = 4  # on average; each active hour gets at least one


@dataclass(frozen=True)
class Schedule:
    timestamps: list[int]
    empty_days: list[int]  # day indexes (0 = the start day) with no block


def plan(rng: random.Random, blocks: int, days: int, start: int) -> Schedule:
    """Spread `blocks` timestamps over `days` days from `start` (a Unix time, ideally midnight).

    Edge cases: with fewer than 3 days no day is left empty; with fewer blocks than days, only
    `blocks` days get a block (one each).
    """
    if blocks < 1 or days < 1:
        raise ValueError("need at least one block and one day")
    empty: list[int] = []
    if days >= 3:
        inner = list(range(1, days - 1))
        empty = sorted(rng.sample(inner, max(1, min(len(inner), days // 15))))
    active_days = [d for d in range(days) if d not in set(empty)]
    if blocks < len(active_days):
        # Keep the first and last day so the span stays as long as asked.
        middle = rng.sample(active_days[1:-1], max(0, blocks - 2))
        kept = sorted({active_days[0], active_days[-1], *middle})[:blocks]
        empty = sorted(set(range(days)) - set(kept)) if blocks >= 2 else empty
        active_days = kept

    capacity = len(active_days) * 24
    hours_wanted = min(capacity, max(len(active_days), -(-blocks // BLOCKS_PER_ACTIVE_HOUR)))
    # One hour on every active day first, then the rest anywhere among the free hour slots.
    chosen = {(d, rng.randrange(24)) for d in active_days}
    free = [(d, h) for d in active_days for h in range(24) if (d, h) not in chosen]
    chosen.update(rng.sample(free, hours_wanted - len(chosen)))
    hours = sorted(chosen)

    per_hour = [1] * len(hours)
    for i in rng.choices(range(len(hours)), k=blocks - len(hours)):
        per_hour[i] += 1
    timestamps: list[int] = []
    for (day, hour), count in zip(hours, per_hour, strict=True):
        base = start + day * DAY + hour * HOUR
        # Second 0 of day 0 is the genesis time; start from 1 so every block is later.
        count = min(count, HOUR - 1)
        timestamps += [base + s for s in sorted(rng.sample(range(1, HOUR), count))]
    # An hour can hold at most 3,599 blocks; top up at the very end if that cap ever bit.
    while len(timestamps) < blocks:
        timestamps.append(timestamps[-1] + 1)
    return Schedule(timestamps=timestamps, empty_days=empty)
