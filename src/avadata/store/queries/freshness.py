"""How fresh a chain's indexed data is: its indexed head and that block's time.

Stage: store. Read by the API's freshness headers (api/freshness.py).
"""

from __future__ import annotations

from sqlalchemy import Connection, and_, select

from avadata.records import EVM_SOURCE
from avadata.store.schema import chains, cursors, evm_blocks, primary_blocks


def evm_head(conn: Connection, key: str) -> tuple[int, int] | None:
    """(number, timestamp) of the indexed head of the chain `key` names (a decimal EVM chain
    ID or a blockchain ID), or None (unknown chain, nothing indexed)."""
    c, k, b = chains.c, cursors.c, evm_blocks.c
    if key.isascii() and key.isdigit() and len(key) <= 18:
        which = c.chain_id == int(key)
    else:
        which = c.blockchain_id == key
    stmt = (
        select(k.block_number, b.timestamp)
        .select_from(
            chains.join(cursors, and_(k.chain_id == c.chain_id, k.source == EVM_SOURCE)).join(
                evm_blocks, and_(b.chain_id == k.chain_id, b.number == k.block_number)
            )
        )
        .where(which)
    )
    row = conn.execute(stmt).first()
    return None if row is None else (int(row[0]), int(row[1]))


def primary_head(conn: Connection, chain: str) -> tuple[int, int] | None:
    """(height, timestamp) of the P- or X-chain's (`chain`) highest indexed block, or None."""
    b = primary_blocks.c
    stmt = (
        select(b.height, b.block_timestamp)
        .where(b.blockchain_id == chain)
        .order_by(b.height.desc())
        .limit(1)
    )
    row = conn.execute(stmt).first()
    return None if row is None else (int(row[0]), int(row[1]))
