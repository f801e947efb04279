"""Keyset queries over P- and X-chain blocks and X-chain vertices (`primary_blocks`).

Order key: the container's Index API position (`idx`), newest first; vertices are the rows of
blockchain_id "X/vtx".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, select

from avadata.store.schema import primary_blocks

b = primary_blocks.c


def list_blocks(
    conn: Connection,
    chain: str,
    after: int | None,
    limit: int,
    *,
    desc: bool = True,
    start: int | None = None,
    end: int | None = None,
    proposer: str | None = None,
    height: int | None = None,
) -> Sequence[Any]:
    """A page of one chain's blocks (or vertices), optionally one proposer's, within block
    times `start`..`end`, or at one `height`."""
    conds = [b.blockchain_id == chain]
    if after is not None:
        conds.append(b.idx < after if desc else b.idx > after)
    if proposer is not None:
        conds.append(b.proposer_node_id == proposer)
    if start is not None:
        conds.append(b.block_timestamp >= start)
    if end is not None:
        conds.append(b.block_timestamp <= end)
    if height is not None:
        conds.append(b.height == height)
    order = b.idx.desc() if desc else b.idx.asc()
    return conn.execute(select(primary_blocks).where(*conds).order_by(order).limit(limit)).all()


def block(conn: Connection, chain: str, block_id: str | None, height: int | None) -> Any:
    """One block by ID or by height (the first indexed at it), or None."""
    cond = b.block_id == block_id if block_id is not None else b.height == height
    stmt = select(primary_blocks).where(b.blockchain_id == chain, cond).order_by(b.idx)
    return conn.execute(stmt.limit(1)).first()
