"""Staking metrics (getStakingMetrics): validator and delegator counts and weights per day,
from the validation periods the P-chain defined.

Stage: metrics (pure). `store/metrics/staking_reads.py` reads the periods.

A day's value is the state at the day's close: the stakers whose period holds the day's last
second (start <= t < end), where a period ends at its end time or when it was removed, and the
newest day closes at the P-chain's newest indexed block (its later hours have not happened).
Series are dense from the first period's start day to the newest block's day, newest first.
"""

from __future__ import annotations

from bisect import bisect_right
from enum import StrEnum
from itertools import accumulate
from typing import NamedTuple

from avadata.metrics.buckets import DAY


class NetworkMetric(StrEnum):
    """The hosted spec's NetworkMetric enum, in its order."""

    DELEGATOR_COUNT = "delegatorCount"
    DELEGATOR_WEIGHT = "delegatorWeight"
    VALIDATOR_COUNT = "validatorCount"
    VALIDATOR_WEIGHT = "validatorWeight"

    @property
    def delegators(self) -> bool:
        return self.value.startswith("delegator")

    @property
    def weight(self) -> bool:
        return self.value.endswith("Weight")


class Period(NamedTuple):
    start: int
    end: int  # exclusive: the end time, or the removal's time if earlier
    weight: int


class Timeline:
    """Stakers active at any time t, by two sorted lists (starts and ends) with running sums."""

    def __init__(self, periods: list[Period]) -> None:
        # A period removed before it started never held any instant.
        live = [p for p in periods if p.end > p.start]
        starts = sorted(live, key=lambda p: p.start)
        ends = sorted(live, key=lambda p: p.end)
        self._starts = [p.start for p in starts]
        self._ends = [p.end for p in ends]
        self._start_w = [0, *accumulate(p.weight for p in starts)]
        self._end_w = [0, *accumulate(p.weight for p in ends)]
        self.first = self._starts[0] if live else None

    def at(self, t: int) -> tuple[int, int]:
        """(count, weight) of the periods with start <= t < end."""
        i, j = bisect_right(self._starts, t), bisect_right(self._ends, t)
        return i - j, self._start_w[i] - self._end_w[j]


def day_close(day: int, now: int) -> int:
    """The instant a day's point describes: its last second, or `now` for the newest day."""
    return min(day + DAY - 1, now)


def value(timeline: Timeline, metric: NetworkMetric, day: int, now: int) -> int:
    count, weight = timeline.at(day_close(day, now))
    return weight if metric.weight else count
