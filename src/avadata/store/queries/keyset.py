"""Keyset (seek) conditions shared by the list queries: never OFFSET, always an index range.

Stage: store. A position is the tuple of sort-key values of the last row served; the next page
starts strictly after it. Row-value comparisons `(a, b) < (x, y)` are used because both engines
turn them into one index range (checked with EXPLAIN QUERY PLAN on SQLite).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

from sqlalchemy import ColumnElement, Row, literal, tuple_

# A result row of any width (SQLAlchemy 2.1 types rows by their column tuple).
AnyRow: TypeAlias = Row[*tuple[Any, ...]]


def _typed(cols: Sequence[Any], position: Sequence[Any]) -> ColumnElement[Any]:
    # Each value is bound with its column's type: a tuple does not coerce its elements, and a
    # U256 on SQLite must be compared as the padded text it is stored as.
    if len(cols) != len(position):
        raise ValueError("position and columns differ in length")
    return tuple_(*(literal(v, c.type) for c, v in zip(cols, position, strict=True)))


def after_desc(cols: Sequence[Any], position: Sequence[Any]) -> ColumnElement[bool]:
    """Rows after `position` in descending order of `cols`."""
    return tuple_(*cols) < _typed(cols, position)


def after_asc(cols: Sequence[Any], position: Sequence[Any]) -> ColumnElement[bool]:
    """Rows after `position` in ascending order of `cols`."""
    return tuple_(*cols) > _typed(cols, position)
