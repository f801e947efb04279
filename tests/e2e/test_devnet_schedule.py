"""The block-time plan of the traffic generator (pure; no node needed)."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from avadata.devnet.schedule import DAY, HOUR, plan

START = 1_735_689_600


@given(
    seed=st.integers(0, 2**32),
    blocks=st.integers(1, 3_000),
    days=st.integers(1, 90),
)
@settings(max_examples=60, deadline=None)
def test_plan_is_strictly_increasing_and_inside_the_days(seed, blocks, days):
    schedule = plan(random.Random(seed), blocks, days, START)
    times = schedule.timestamps
    assert len(times) == blocks
    assert all(a < b for a, b in zip(times, times[1:], strict=False))
    assert START < times[0] and times[-1] < START + days * DAY
    used = {(t - START) // DAY for t in times}
    assert not used & set(schedule.empty_days)


def test_small_plan_shape():
    schedule = plan(random.Random(7), 300, 45, START)
    times = schedule.timestamps
    days = {(t - START) // DAY for t in times}
    assert {0, 44} <= days, "spans every requested day"
    assert schedule.empty_days and set(range(45)) - days == set(schedule.empty_days)
    per_hour = Counter(t // HOUR for t in times)
    assert sum(per_hour.values()) / len(per_hour) >= 2, "several blocks per active hour"
    assert plan(random.Random(7), 300, 45, START) == schedule, "seeded: same plan"
