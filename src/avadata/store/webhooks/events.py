"""The indexed rows a webhook's events are made of: which transactions touch the watched
addresses after a cursor, and each one's transaction, transfers, internal calls and logs.

Stage: store. The delivery worker and the event stream shape these rows into the hosted
service's payload (delivery/payload.py); nothing here knows that shape.

A transaction touches an address when the address sent or received it, is a party of one of its
token transfers or a listed internal call (the Data API's rule, store/rows.is_listed_call), or
is the token contract of one of its transfers. Positions are (block_number, tx_index), strictly
increasing: events come in chain order, each transaction once per webhook.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Select, and_, or_, select, tuple_

from avadata.store.cursors import EVM_SOURCE, get_cursor
from avadata.store.schema import (
    cursors,
    evm_blocks,
    evm_logs,
    evm_txs,
    internal_call_participants,
    internal_calls,
    token_transfers,
    tokens,
    transfer_participants,
)

Position = tuple[int, int]
# Addresses per IN list: well under both engines' bound parameter limits.
_IN_CHUNK = 500


@dataclass(slots=True)
class TxEvent:
    """One transaction's rows, as plain dicts of column values."""

    position: Position
    tx: dict[str, Any]
    transfers: list[dict[str, Any]] = field(default_factory=list)
    internals: list[dict[str, Any]] = field(default_factory=list)
    logs: list[dict[str, Any]] = field(default_factory=list)


def indexed_head(conn: Connection, chain_id: int) -> int | None:
    """The last block whose rows are all committed (the indexer's cursor)."""
    cur = get_cursor(conn, chain_id)
    return None if cur is None else cur.block_number


def after_position(block: Any, tx: Any, pos: Position) -> Any:
    """Rows at a (block, tx index) position strictly after `pos`."""
    return or_(block > pos[0], and_(block == pos[0], tx > pos[1]))


def _candidates(chain_id: int, addrs: Sequence[str], after: Position, upto: int) -> list[Any]:
    """One keyset query per way a transaction can touch the addresses."""
    t, tt, tp, ip = (
        evm_txs.c,
        token_transfers.c,
        transfer_participants.c,
        internal_call_participants.c,
    )
    out: list[Select[Any]] = []
    for col in (t.from_address, t.to_address):
        out.append(
            select(t.block_number, t.tx_index).where(
                t.chain_id == chain_id,
                col.in_(addrs),
                after_position(t.block_number, t.tx_index, after),
                t.block_number <= upto,
            )
        )
    joined = transfer_participants.join(
        token_transfers,
        and_(
            tt.chain_id == tp.chain_id,
            tt.block_number == tp.block_number,
            tt.log_index == tp.log_index,
            tt.batch_index == tp.batch_index,
        ),
    )
    out.append(
        select(tt.block_number, tt.tx_index)
        .select_from(joined)
        .where(
            tp.chain_id == chain_id,
            tp.address.in_(addrs),
            tp.block_number >= after[0],
            tp.block_number <= upto,
            after_position(tt.block_number, tt.tx_index, after),
        )
    )
    out.append(
        select(tt.block_number, tt.tx_index).where(
            tt.chain_id == chain_id,
            tt.token.in_(addrs),
            after_position(tt.block_number, tt.tx_index, after),
            tt.block_number <= upto,
        )
    )
    out.append(
        select(ip.block_number, ip.tx_index).where(
            ip.chain_id == chain_id,
            ip.address.in_(addrs),
            after_position(ip.block_number, ip.tx_index, after),
            ip.block_number <= upto,
        )
    )
    return out


def next_positions(
    conn: Connection,
    chain_id: int,
    addresses: Sequence[str],
    after: Position,
    upto: int,
    limit: int,
) -> list[Position]:
    """The first `limit` positions after `after` (up to block `upto`) touching `addresses`.
    Each candidate query keeps its own first `limit`: the union's first `limit` are then
    exact."""
    found: set[Position] = set()
    for i in range(0, len(addresses), _IN_CHUNK):
        chunk = list(addresses[i : i + _IN_CHUNK])
        for stmt in _candidates(chain_id, chunk, after, upto):
            cols = stmt.selected_columns
            # Distinct: a transaction has many rows in some tables (a participant of several
            # frames or transfers), and `limit` counts transactions.
            rows = conn.execute(stmt.distinct().order_by(cols[0], cols[1]).limit(limit))
            found.update((int(b), int(x)) for b, x in rows)
    return sorted(found)[:limit]


def _rows(conn: Connection, stmt: Select[Any]) -> list[dict[str, Any]]:
    return [dict(r._mapping) for r in conn.execute(stmt)]


def load_events(
    conn: Connection,
    chain_id: int,
    positions: Sequence[Position],
    *,
    internals: bool,
    logs: bool,
) -> list[TxEvent]:
    """The rows of each transaction at `positions`, in the same order (a position without a
    transaction row is skipped)."""
    if not positions:
        return []
    t, tt, ic, lg, tk = evm_txs.c, token_transfers.c, internal_calls.c, evm_logs.c, tokens.c
    keys = list(positions)
    b = evm_blocks.c
    txs = (
        select(evm_txs, b.base_fee)
        .select_from(
            evm_txs.join(evm_blocks, and_(b.chain_id == t.chain_id, b.number == t.block_number))
        )
        .where(t.chain_id == chain_id, tuple_(t.block_number, t.tx_index).in_(keys))
    )
    events = {_pos(r): TxEvent(_pos(r), r) for r in _rows(conn, txs)}
    with_token = token_transfers.outerjoin(
        tokens, and_(tk.chain_id == tt.chain_id, tk.address == tt.token)
    )
    transfer_stmt = (
        select(token_transfers, tk.name, tk.symbol, tk.decimals)
        .select_from(with_token)
        .where(tt.chain_id == chain_id, tuple_(tt.block_number, tt.tx_index).in_(keys))
        .order_by(tt.block_number, tt.log_index, tt.batch_index)
    )
    for r in _rows(conn, transfer_stmt):
        if (ev := events.get(_pos(r))) is not None:
            ev.transfers.append(r)
    if internals:
        stmt = (
            select(internal_calls)
            .where(
                ic.chain_id == chain_id,
                ic.depth > 0,
                tuple_(ic.block_number, ic.tx_index).in_(keys),
            )
            .order_by(ic.block_number, ic.tx_index, ic.trace_index)
        )
        for r in _rows(conn, stmt):
            if (ev := events.get(_pos(r))) is not None:
                ev.internals.append(r)
    if logs:
        stmt = (
            select(evm_logs)
            .where(lg.chain_id == chain_id, tuple_(lg.block_number, lg.tx_index).in_(keys))
            .order_by(lg.block_number, lg.log_index)
        )
        for r in _rows(conn, stmt):
            if (ev := events.get(_pos(r))) is not None:
                ev.logs.append(r)
    return [events[p] for p in keys if p in events]


def _pos(row: dict[str, Any]) -> Position:
    return (int(row["block_number"]), int(row["tx_index"]))


def indexed_heads(conn: Connection) -> dict[int, int]:
    """Every EVM chain's indexed head, by chain ID (one query: the delivery worker's poll)."""
    c = cursors.c
    rows = conn.execute(select(c.chain_id, c.block_number).where(c.source == EVM_SOURCE))
    return {int(chain): int(block) for chain, block in rows}
