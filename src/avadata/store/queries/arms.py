"""Several selects of different shapes as one statement: one round trip instead of one each.

Stage: store. Used where each statement costs a round trip (`dialect.round_trips`): a
transaction with its transfers and calls, an address's page with its details, a page with the
holder's native balance.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import cast, literal_column, null, union_all


def arms(*selects: Any) -> Any:
    """The selects in one UNION ALL (one round trip, not one each): a first column says
    which arm (its position: 0 the first), then every arm's columns in turn; each arm names its
    own columns as they are and pads the others' with NULLs cast to their type (so that each
    column keeps its type however many arms pad it)."""
    columns = [list(a.selected_columns) for a in selects]
    out = []
    for i, arm in enumerate(selects):
        row: list[Any] = [literal_column(str(i)).label("arm")]
        for j, cols in enumerate(columns):
            if j == i:
                row.extend(cols)
            else:
                row.extend(cast(null(), c.type).label(f"arm{j}_{c.key}") for c in cols)
        out.append(arm.with_only_columns(*row))
    return union_all(*out)


def arm_rows(rows: Iterable[Sequence[Any]], arm: int, skip: int, width: int) -> list[Sequence[Any]]:
    """The rows of an `arms` statement's arm `arm`, each its own `width` columns (after the
    `skip` columns of the arms before it)."""
    return [row[1 + skip : 1 + skip + width] for row in rows if row[0] == arm]
