"""The indexed rows of the primary-network webhooks' events: which P-/X-chain transactions
touch the watched addresses (primary_network_address_activity) or the watched validators
(validator_activity) after a cursor, and each one's transaction and UTXO rows.

Stage: store. delivery/primary/payload.py shapes them; nothing here knows that shape.

Positions are (block_number, tx_index) on one chain (P or X), strictly increasing: events come
in chain order, each transaction once per webhook. A transaction touches an address when
primary_address_txs links them (an input's or an output's owner, a reward UTXO's owner: the
Data API's listing rule). It touches a validator (node ID or subnet ID) when it opened one of
its validations or delegations, rewarded one (RewardValidatorTx), or is one of an L1
validation's txs (register, weight, balance, disable).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, and_, func, select, tuple_

from avadata.store.schema import (
    primary_address_txs,
    primary_blocks,
    primary_l1_validation_txs,
    primary_l1_validators,
    primary_txs,
    primary_utxos,
    primary_validations,
)
from avadata.store.webhooks.events import Position, after_position

_IN_CHUNK = 500


@dataclass(slots=True)
class PrimaryEvent:
    """One transaction's rows: the tx (its `body` parsed), the UTXOs it emitted and consumed
    on its chain, the validations it touched as (kind, node_id, subnet_id) and, for a
    RewardValidatorTx, the primary_validations rows it ended."""

    position: Position
    tx: dict[str, Any]
    emitted: list[dict[str, Any]] = field(default_factory=list)
    consumed: list[dict[str, Any]] = field(default_factory=list)
    validations: list[tuple[str, str, str]] = field(default_factory=list)
    rewarded: list[dict[str, Any]] = field(default_factory=list)


def _first(conn: Connection, stmts: Sequence[Any], limit: int) -> list[Position]:
    """The union's first `limit` positions: each query keeps its own first `limit`."""
    found: set[Position] = set()
    for stmt in stmts:
        cols = stmt.selected_columns
        rows = conn.execute(stmt.distinct().order_by(cols[0], cols[1]).limit(limit))
        found.update((int(b), int(x)) for b, x in rows)
    return sorted(found)[:limit]


def address_positions(
    conn: Connection,
    chain: str,
    addresses: Sequence[str],
    after: Position,
    upto: int,
    limit: int,
) -> list[Position]:
    """The first `limit` positions on `chain` after `after` (up to block `upto`) of txs that
    touch `addresses` (bare bech32, as the store keeps them)."""
    a = primary_address_txs.c
    stmts = [
        select(a.block_number, a.tx_index).where(
            a.address.in_(list(addresses[i : i + _IN_CHUNK])),
            a.blockchain_id == chain,
            a.block_number >= after[0],
            a.block_number <= upto,
            after_position(a.block_number, a.tx_index, after),
            *_linear(chain, a.tx_hash),
        )
        for i in range(0, len(addresses), _IN_CHUNK)
    ]
    return _first(conn, stmts, limit)


def _linear(chain: str, tx_hash: Any) -> list[Any]:
    """On the X-chain, the condition that the tx `tx_hash` is in a block: a DAG-era vertex's
    txs share its (height, index) positions with the blocks' (both count from 0) and have no
    place in their order; they are left out."""
    if chain != "X":
        return []
    t, b = primary_txs.c, primary_blocks.c
    in_block = (
        select(t.tx_hash)
        .select_from(
            primary_txs.join(
                primary_blocks, and_(b.blockchain_id == "X", b.block_id == t.block_hash)
            )
        )
        .where(t.blockchain_id == "X", t.tx_hash == tx_hash)
    )
    return [in_block.exists()]


def _validator_queries(by: str, keys: list[str], after: Position, upto: int) -> list[Any]:
    """One query per way a P-chain tx touches the validators `keys` name (`by`: node_id or
    subnet_id); each selects (block, tx index, kind, node_id, subnet_id)."""
    t, v = primary_txs.c, primary_validations.c
    lt, lv = primary_l1_validation_txs.c, primary_l1_validators.c
    out = []
    for tx_col, suffix in (
        (v.tx_hash, ""),
        (v.reward_tx_hash, "_reward"),
        (v.remove_tx_hash, "_removed"),
    ):
        shown = v.kind.concat(suffix) if suffix else v.kind
        out.append(
            select(t.block_number, t.tx_index, shown.label("kind"), v.node_id, v.subnet_id)
            .select_from(
                primary_validations.join(
                    primary_txs, and_(t.blockchain_id == "P", t.tx_hash == tx_col)
                )
            )
            .where(
                getattr(v, by).in_(keys),
                t.block_number <= upto,
                after_position(t.block_number, t.tx_index, after),
            )
        )
    out.append(
        select(
            lt.block_number, lt.tx_index, lv.validation_id.label("kind"), lv.node_id, lv.subnet_id
        )
        .select_from(
            primary_l1_validation_txs.join(
                primary_l1_validators, lv.validation_id == lt.validation_id
            )
        )
        .where(
            getattr(lv, by).in_(keys),
            lt.block_number <= upto,
            after_position(lt.block_number, lt.tx_index, after),
        )
    )
    return out


def validator_touches(
    conn: Connection, by: str, keys: Sequence[str], after: Position, upto: int, limit: int
) -> dict[Position, list[tuple[str, str, str]]]:
    """The first `limit` P-chain positions after `after` whose txs touch the validators named
    by `keys`, each with its (kind, node_id, subnet_id) touches. `kind`: validator, delegator,
    subnet_validator (an opening), the same + "_reward" (a RewardValidatorTx) or + "_removed"
    (a RemoveSubnetValidatorTx), or the L1 validation ID (an L1 validation's tx)."""
    stmts = _validator_queries(by, list(keys), after, upto)
    first = _first(conn, [s.with_only_columns(*s.selected_columns[:2]) for s in stmts], limit)
    if not first:
        return {}
    last = first[-1]
    touches: dict[Position, list[tuple[str, str, str]]] = {p: [] for p in first}
    for stmt in stmts:
        bounded = stmt.where(stmt.selected_columns[0] <= last[0])
        for b, x, kind, node, subnet in conn.execute(bounded):
            pos = (int(b), int(x))
            if pos <= last and pos in touches and (kind, node, subnet) not in touches[pos]:
                touches[pos].append((str(kind), str(node), str(subnet)))
    return touches


def _c_head(conn: Connection) -> int | None:
    """The C-chain block of the last indexed atomic tx: the C-chain's blocks are the EVM
    wing's, and its atomic txs (all a webhook of it reports) come by the Index API."""
    t = primary_txs.c
    stmt = (
        select(t.block_number)
        .where(t.blockchain_id == "C")
        .order_by(t.block_timestamp.desc(), t.block_number.desc())
        .limit(1)
    )
    found = conn.execute(stmt).scalar()
    return None if found is None else int(found)


def primary_head(conn: Connection, chain: str) -> int | None:
    """The highest indexed block of the P- or X-chain (`chain`; C: `_c_head`), None before
    the first."""
    if chain == "C":
        return _c_head(conn)
    b = primary_blocks.c
    found = conn.execute(select(func.max(b.height)).where(b.blockchain_id == chain)).scalar()
    return None if found is None else int(found)


def p_block_time(conn: Connection, height: int) -> int | None:
    """The time of the P-chain block at `height` (None: not indexed)."""
    b = primary_blocks.c
    stmt = select(func.max(b.block_timestamp)).where(b.blockchain_id == "P", b.height == height)
    found = conn.execute(stmt).scalar()
    return None if found is None else int(found)


def first_p_block_at(conn: Connection, at: int, lo: int, hi: int) -> int | None:
    """The lowest P-chain height in [lo, hi] whose block time is `at` or later (None: none
    is). A binary search over the height index (block times never go back; no index on
    them): about log2(hi - lo) one-row reads."""
    if lo > hi:
        return None
    last = p_block_time(conn, hi)
    if last is None or last < at:
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        t = p_block_time(conn, mid)
        if t is not None and t >= at:
            hi = mid
        else:
            lo = mid + 1
    return lo


def indexed_heads(conn: Connection) -> dict[str, int]:
    """The P-, X- and C-chains' heads as primary_head says (the delivery worker's poll)."""
    b = primary_blocks.c
    stmt = (
        select(b.blockchain_id, func.max(b.height))
        .where(b.blockchain_id.in_(("P", "X")))
        .group_by(b.blockchain_id)
    )
    out = {str(chain): int(height) for chain, height in conn.execute(stmt)}
    c_head = _c_head(conn)
    if c_head is not None:
        out["C"] = c_head
    return out


def load_events(conn: Connection, chain: str, positions: Sequence[Position]) -> list[PrimaryEvent]:
    """The tx and UTXO rows of each position on `chain`, in the same order (a position
    without a tx row, or with a DAG-era vertex's only, is skipped)."""
    if not positions:
        return []
    t, u = primary_txs.c, primary_utxos.c
    stmt = select(primary_txs).where(
        t.blockchain_id == chain, tuple_(t.block_number, t.tx_index).in_(list(positions))
    )
    if chain == "X":  # the linear chain's txs only (_linear)
        b = primary_blocks.c
        linear = select(b.block_id).where(b.blockchain_id == "X", b.block_id == t.block_hash)
        stmt = stmt.where(linear.exists())
    found: dict[Position, PrimaryEvent] = {}
    by_hash: dict[str, PrimaryEvent] = {}
    for r in conn.execute(stmt):
        row = dict(r._mapping)
        row["body"] = json.loads(row["body"])
        ev = PrimaryEvent((int(row["block_number"]), int(row["tx_index"])), row)
        found[ev.position] = by_hash[str(row["tx_hash"])] = ev
    hashes = list(by_hash)
    cols = [u.utxo_id, u.tx_hash, u.output_index, u.asset_id, u.amount, u.addresses, u.staked]
    cols += [u.reward_type, u.consuming_tx_hash, u.created_on, u.consumed_on]
    emitted = select(*cols).where(u.tx_hash.in_(hashes), u.created_on == chain)
    for r in conn.execute(emitted.order_by(u.tx_hash, u.output_index)):
        by_hash[str(r.tx_hash)].emitted.append(dict(r._mapping))
    consumed = select(*cols).where(u.consuming_tx_hash.in_(hashes), u.consumed_on == chain)
    for r in conn.execute(consumed.order_by(u.consuming_tx_hash, u.utxo_id)):
        by_hash[str(r.consuming_tx_hash)].consumed.append(dict(r._mapping))
    if chain == "P":
        v = primary_validations.c
        ended = select(primary_validations).where(v.reward_tx_hash.in_(hashes))
        for r in conn.execute(ended.order_by(v.tx_hash)):
            by_hash[str(r.reward_tx_hash)].rewarded.append(dict(r._mapping))
    return [found[p] for p in positions if p in found]
