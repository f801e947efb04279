"""Reads behind listL1Validators (GET /v1/networks/{network}/l1Validators) beyond the fee
replay's (store/metrics/l1_reads.py): each validation's owners, and the P-chain's span of
blocks (its head, and the mean block interval the runway's height estimate needs).

Stage: store (reads only).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from sqlalchemy import Connection, func, select

from avadata.store.schema import primary_blocks, primary_l1_validators


def owners(conn: Connection, validation_ids: Sequence[str]) -> dict[str, tuple[str | None, ...]]:
    """validation ID -> (remaining_balance_owner, deactivation_owner) JSON texts (NULL when
    the store was written before the column)."""
    ids = sorted(set(validation_ids))
    if not ids:
        return {}
    v = primary_l1_validators.c
    stmt = select(v.validation_id, v.remaining_balance_owner, v.deactivation_owner).where(
        v.validation_id.in_(ids)
    )
    return {str(r[0]): (r[1], r[2]) for r in conn.execute(stmt)}


class Span(NamedTuple):
    first_height: int
    first_timestamp: int
    head_height: int
    head_timestamp: int

    @property
    def interval(self) -> float | None:
        """Mean seconds between blocks (None with fewer than two)."""
        blocks = self.head_height - self.first_height
        return (self.head_timestamp - self.first_timestamp) / blocks if blocks > 0 else None


def p_chain_span(conn: Connection) -> Span | None:
    """The first and the newest indexed P-chain block (height, time)."""
    b = primary_blocks.c
    heights = conn.execute(
        select(func.min(b.height), func.max(b.height)).where(b.blockchain_id == "P")
    ).one()
    if heights[0] is None:
        return None
    times = dict(
        conn.execute(
            select(b.height, b.block_timestamp).where(
                b.blockchain_id == "P", b.height.in_([int(heights[0]), int(heights[1])])
            )
        ).all()
    )
    low, high = int(heights[0]), int(heights[1])
    return Span(low, int(times[low]), high, int(times[high]))
