"""Reads behind listL1Validators (GET /v1/networks/{network}/l1Validators) beyond the fee
replay's (store/metrics/l1_reads.py): each validation's owners, and the P-chain's span of
blocks (its head, and the mean block interval the runway's height estimate needs).

Stage: store (reads only).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from sqlalchemy import Connection, and_, func, select

from avadata.store.primary.queries.txs import L1_DEFINING
from avadata.store.schema import (
    primary_blocks,
    primary_l1_validation_txs,
    primary_l1_validators,
    primary_txs,
)


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


def defining_txs(conn: Connection) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """Every L1 validation's txs that set its weight (creation, weight changes): (validation
    ID, tx hash) pairs oldest first per validation, and each tx's body once (a conversion's
    names every validation it creates: one body for all of them)."""
    x, t = primary_l1_validation_txs.c, primary_txs.c
    links = [
        (str(vid), str(tx))
        for vid, tx in conn.execute(
            select(x.validation_id, x.tx_hash)
            .join(primary_txs, and_(t.blockchain_id == "P", t.tx_hash == x.tx_hash))
            .where(t.tx_type.in_(L1_DEFINING))
            .order_by(x.validation_id, x.block_timestamp, x.block_number, x.tx_index)
        )
    ]
    wanted = sorted({tx for _, tx in links})
    bodies: dict[str, str] = {}
    for part in range(0, len(wanted), 500):
        stmt = select(t.tx_hash, t.body).where(
            t.blockchain_id == "P", t.tx_hash.in_(wanted[part : part + 500])
        )
        bodies.update((str(h), str(b)) for h, b in conn.execute(stmt))
    return links, bodies


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
    # Two subqueries: each is one probe of the (chain, height) index, where min and max in
    # one SELECT walk the whole range.
    on_p = b.blockchain_id == "P"
    heights = conn.execute(
        select(
            select(func.min(b.height)).where(on_p).scalar_subquery(),
            select(func.max(b.height)).where(on_p).scalar_subquery(),
        )
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
