"""Bucket starts in UTC as integers: hour, day, week (Monday) and month.

Stage: metrics (pure; no I/O, no clock). Every rollup key and every data-point timestamp comes
from here, so SQL only ever groups and compares integers (no date functions on either engine).

Invariant: for every timestamp t and interval i, `start(t, i) <= t < following(start(t, i), i)`,
and `start` is idempotent. Negative timestamps (before 1970) work the same way.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from enum import StrEnum
from functools import lru_cache

HOUR = 3_600
DAY = 86_400
WEEK = 7 * DAY
# 1970-01-01 was a Thursday; the first Monday 00:00 UTC after the epoch is 1970-01-05.
_MONDAY_EPOCH = 4 * DAY


class Interval(StrEnum):
    """The seed's timeInterval values; `code` is the one-letter key stored in rollup tables."""

    HOUR = "hour"
    DAY = "day"
    WEEK = "week"
    MONTH = "month"

    @property
    def code(self) -> str:
        return _CODES[self.value]


ALL_INTERVALS = (Interval.HOUR, Interval.DAY, Interval.WEEK, Interval.MONTH)
_CODES = {"hour": "h", "day": "d", "week": "w", "month": "m"}


def start(ts: int, interval: Interval) -> int:
    """The start (Unix seconds, UTC) of the bucket of `interval` containing `ts`."""
    if interval is Interval.HOUR:
        return ts - ts % HOUR
    if interval is Interval.DAY:
        return ts - ts % DAY
    if interval is Interval.WEEK:
        return ts - (ts - _MONDAY_EPOCH) % WEEK
    return _month_of_day(ts - ts % DAY)


def week_of_day(day: int) -> int:
    """The Monday starting the week of `day` (a day start)."""
    return day - (day - _MONDAY_EPOCH) % WEEK


def month_of_day(day: int) -> int:
    """The first of the month of `day` (a day start)."""
    return _month_of_day(day)


@lru_cache(maxsize=8192)
def _month_of_day(day: int) -> int:
    # Cached: the rollup asks for the month of the same few days thousands of times a batch.
    d = datetime.fromtimestamp(day, UTC)
    return _month_start(d.year, d.month)


def following(bucket: int, interval: Interval) -> int:
    """The start of the bucket after the one starting at `bucket` (which must be a start)."""
    if interval is Interval.HOUR:
        return bucket + HOUR
    if interval is Interval.DAY:
        return bucket + DAY
    if interval is Interval.WEEK:
        return bucket + WEEK
    d = datetime.fromtimestamp(bucket, UTC)
    return _month_start(d.year + d.month // 12, d.month % 12 + 1)


def preceding(bucket: int, interval: Interval) -> int:
    """The start of the bucket before the one starting at `bucket`."""
    return start(bucket - 1, interval)


_FIXED = {Interval.HOUR: HOUR, Interval.DAY: DAY, Interval.WEEK: WEEK}


def span(first: int, last: int, interval: Interval) -> Iterator[int]:
    """Bucket starts from the bucket of `first` to the bucket of `last`, oldest first."""
    b, end = start(first, interval), start(last, interval)
    if interval in _FIXED:
        yield from range(b, end + 1, _FIXED[interval])
        return
    while b <= end:
        yield b
        b = following(b, interval)


def span_desc(first: int, last: int, interval: Interval) -> Iterator[int]:
    """Like `span`, newest first (the order of every metrics response)."""
    b, stop = start(last, interval), start(first, interval)
    if interval in _FIXED:
        yield from range(b, stop - 1, -_FIXED[interval])
        return
    while b >= stop:
        yield b
        b = preceding(b, interval)


def back(bucket: int, steps: int, interval: Interval, floor: int) -> int:
    """The bucket `steps` before `bucket`, but not before `floor` (both bucket starts)."""
    if interval in _FIXED:
        return max(floor, bucket - steps * _FIXED[interval])
    for _ in range(steps):
        if bucket <= floor:
            break
        bucket = preceding(bucket, interval)
    return max(floor, bucket)


def _month_start(year: int, month: int) -> int:
    return int(datetime(year, month, 1, tzinfo=UTC).timestamp())
