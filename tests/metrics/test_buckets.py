"""Bucket starts: each timestamp in exactly one bucket per interval; Monday weeks; month starts.

Checked against datetime arithmetic written here, not against buckets.py itself."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from avadata.metrics import buckets
from avadata.metrics.buckets import ALL_INTERVALS, Interval

# 1950 .. 2150: before the epoch too.
TS = st.integers(min_value=-631_152_000, max_value=5_680_281_600)


@given(TS)
def test_each_timestamp_in_exactly_one_bucket(ts: int) -> None:
    for interval in ALL_INTERVALS:
        b = buckets.start(ts, interval)
        nxt = buckets.following(b, interval)
        assert b <= ts < nxt
        assert buckets.start(b, interval) == b
        assert buckets.start(nxt, interval) == nxt
        assert buckets.preceding(nxt, interval) == b
        # The neighbours do not contain ts: exactly one bucket.
        assert not (buckets.preceding(b, interval) <= ts < b)


@given(TS)
def test_calendar_alignment(ts: int) -> None:
    d = datetime.fromtimestamp(ts, UTC)
    hour = datetime.fromtimestamp(buckets.start(ts, Interval.HOUR), UTC)
    assert (hour.minute, hour.second, hour.date(), hour.hour) == (0, 0, d.date(), d.hour)
    day = datetime.fromtimestamp(buckets.start(ts, Interval.DAY), UTC)
    assert (day.date(), day.hour, day.minute, day.second) == (d.date(), 0, 0, 0)
    week = datetime.fromtimestamp(buckets.start(ts, Interval.WEEK), UTC)
    assert week.weekday() == 0 and (week.hour, week.minute, week.second) == (0, 0, 0)
    assert 0 <= (d.date() - week.date()).days < 7
    month = datetime.fromtimestamp(buckets.start(ts, Interval.MONTH), UTC)
    assert (month.year, month.month, month.day, month.hour) == (d.year, d.month, 1, 0)


def test_known_boundaries() -> None:
    # 2026-03-02 is a Monday; 2026-03-01 a Sunday.
    sunday = int(datetime(2026, 3, 1, 23, 59, 59, tzinfo=UTC).timestamp())
    assert buckets.start(sunday, Interval.WEEK) == int(
        datetime(2026, 2, 23, tzinfo=UTC).timestamp()
    )
    assert buckets.start(sunday + 1, Interval.WEEK) == sunday + 1
    assert buckets.start(sunday, Interval.MONTH) == int(
        datetime(2026, 3, 1, tzinfo=UTC).timestamp()
    )
    dec = int(datetime(2026, 12, 31, 12, tzinfo=UTC).timestamp())
    jan = int(datetime(2027, 1, 1, tzinfo=UTC).timestamp())
    assert buckets.following(buckets.start(dec, Interval.MONTH), Interval.MONTH) == jan
    leap = int(datetime(2028, 2, 29, 5, tzinfo=UTC).timestamp())
    assert buckets.following(buckets.start(leap, Interval.MONTH), Interval.MONTH) == int(
        datetime(2028, 3, 1, tzinfo=UTC).timestamp()
    )


@given(TS, st.integers(min_value=0, max_value=400 * 86_400))
def test_span_lists_consecutive_buckets(ts: int, width: int) -> None:
    for interval in ALL_INTERVALS:
        up = list(buckets.span(ts, ts + width, interval))
        down = list(buckets.span_desc(ts, ts + width, interval))
        assert up == down[::-1]
        assert up[0] == buckets.start(ts, interval)
        assert up[-1] == buckets.start(ts + width, interval)
        assert all(buckets.following(a, interval) == b for a, b in zip(up, up[1:], strict=False))
