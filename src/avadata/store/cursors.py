"""Indexing progress per (chain, source): the last block whose rows are all committed.

Stage: store. The writer moves the cursor in the same transaction as the rows it covers, so
after a crash the cursor never points past missing rows, nor behind rows it would duplicate
(inserts are insert-or-ignore on natural keys anyway).
"""

from __future__ import annotations

from typing import NamedTuple

from sqlalchemy import Connection, Engine, select

from avadata.records import EVM_SOURCE
from avadata.store import dialect
from avadata.store.schema import cursors

__all__ = ["EVM_SOURCE", "Cursor", "advance_cursor", "get_cursor", "set_cursor"]


class Cursor(NamedTuple):
    """The last indexed block; a plain (number, hash) pair to callers that unpack it."""

    block_number: int
    block_hash: str


def get_cursor(
    engine: Engine | Connection, chain_id: int, source: str = EVM_SOURCE
) -> Cursor | None:
    """The last indexed block of (chain_id, source), or None when nothing was indexed yet."""
    stmt = select(cursors.c.block_number, cursors.c.block_hash).where(
        cursors.c.chain_id == chain_id, cursors.c.source == source
    )
    if isinstance(engine, Connection):
        row = engine.execute(stmt).first()
    else:
        with engine.connect() as conn:
            row = conn.execute(stmt).first()
    if row is None:
        return None
    return Cursor(int(row.block_number), str(row.block_hash))


def advance_cursor(
    conn: Connection, chain_id: int, source: str, block_number: int, block_hash: str
) -> None:
    """Move the cursor forward to `block_number`; a replayed older range leaves it where it is.

    The chain's `chains` row must exist (foreign key); the writer ensures it.
    """
    conn.execute(
        _advance(conn),
        {
            "chain_id": chain_id,
            "source": source,
            "block_number": block_number,
            "block_hash": block_hash,
        },
    )


_advance = dialect.upsert_once(
    cursors,
    keys=("chain_id", "source"),
    set_=lambda ex: {"block_number": ex.block_number, "block_hash": ex.block_hash},
    where=lambda ex: ex.block_number > cursors.c.block_number,
)


def set_cursor(
    conn: Connection, chain_id: int, source: str, block_number: int, block_hash: str
) -> None:
    """Put the cursor at `block_number` unconditionally (an operator's rewind)."""
    stmt = dialect.upsert(
        conn,
        cursors,
        keys=("chain_id", "source"),
        set_=lambda ex: {"block_number": ex.block_number, "block_hash": ex.block_hash},
    )
    conn.execute(
        stmt,
        {
            "chain_id": chain_id,
            "source": source,
            "block_number": block_number,
            "block_hash": block_hash,
        },
    )
