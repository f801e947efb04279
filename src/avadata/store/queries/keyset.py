"""Keyset (seek) conditions shared by the list queries: never OFFSET, always an index range.

Stage: store. A position is the tuple of sort-key values of the last row served; the next page
starts strictly after it. Row-value comparisons `(a, b) < (x, y)` are used because both engines
turn them into one index range (checked with EXPLAIN QUERY PLAN on SQLite).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, tuple_


def after_desc(cols: Sequence[Any], position: Sequence[Any]) -> ColumnElement[bool]:
    """Rows after `position` in descending order of `cols`."""
    return tuple_(*cols) < tuple_(*position)


def after_asc(cols: Sequence[Any], position: Sequence[Any]) -> ColumnElement[bool]:
    """Rows after `position` in ascending order of `cols`."""
    return tuple_(*cols) > tuple_(*position)
