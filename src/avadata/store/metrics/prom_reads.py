"""Reads behind GET /metrics (Prometheus): each chain's indexed head.

Stage: store (reads only; one small query per table, whatever the store's size).
"""

from __future__ import annotations

from sqlalchemy import Connection, select

from avadata.records import EVM_SOURCE
from avadata.store.schema import cursors, evm_blocks, primary_cursors


def evm_heads(conn: Connection) -> list[tuple[int, int, int | None]]:
    """(EVM chain ID, newest indexed block, its timestamp) of every chain with a cursor."""
    c, b = cursors.c, evm_blocks.c
    q = (
        select(c.chain_id, c.block_number, b.timestamp)
        .select_from(
            cursors.outerjoin(evm_blocks, (b.chain_id == c.chain_id) & (b.number == c.block_number))
        )
        .where(c.source == EVM_SOURCE)
        .order_by(c.chain_id)
    )
    return [(int(i), int(n), None if t is None else int(t)) for i, n, t in conn.execute(q)]


def primary_heads(conn: Connection) -> list[tuple[str, int]]:
    """(blockchain ID, last committed Index API container index) of each primary chain."""
    p = primary_cursors.c
    q = select(p.blockchain_id, p.container_index).order_by(p.blockchain_id)
    return [(str(i), int(n)) for i, n in conn.execute(q)]
