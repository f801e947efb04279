"""Keyset queries over every staking period: listValidators, listDelegators and the pending
rewards list (GET /v1/networks/{network}/validators, /delegators, /rewards:listPending).

Stage: store (reads only). They read `primary_validations` (one row per staking tx, kept up
to date by the indexer) and the node's live staker facts, never the P-chain's txs. A period's
status is validators.status_condition's at the P-chain's current time `now`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Row, Select, bindparam, func, or_, select, tuple_
from sqlalchemy.sql import ColumnElement

from avadata.store.primary.queries.txs import after_key, ordered, tops_of
from avadata.store.primary.queries.validators import (
    Position,
    staked_condition,
    status_condition,
    with_live,
)
from avadata.store.schema import (
    primary_reward_keys,
    primary_staker_live,
    primary_utxos,
    primary_validations,
)

v = primary_validations.c
live = primary_staker_live.c

# listValidators' sort keys the store orders by (the others are computed per row by the API).
SQL_SORTS: dict[str, ColumnElement[Any]] = {
    "blockIndex": v.block_timestamp,
    "timeRemaining": v.end_ts,  # the time remaining orders as the end does
    "delegationFee": func.coalesce(v.delegation_fee, -1),
}


@dataclass(frozen=True, slots=True)
class PeriodFilter:
    """What selects validation periods; None: no condition."""

    kinds: tuple[str, ...]
    status: str | None = None
    subnet_id: str | None = None
    node_ids: tuple[str, ...] = ()  # exact node IDs
    node_parts: tuple[str, ...] = ()  # substrings of the node ID (any matches)
    reward_addresses: tuple[str, ...] = ()  # "P-..." reward owner addresses (any matches)
    fee_ppm: tuple[int | None, int | None] = (None, None)  # delegation fee bounds
    ends: tuple[int | None, int | None] = (None, None)  # end time bounds
    uptime: tuple[float | None, float | None] = (None, None)
    staked_only: bool = False  # neither ended nor removed (pending rewards)


def _conditions(f: PeriodFilter, now: int) -> list[ColumnElement[bool]]:
    out: list[ColumnElement[bool]] = [v.kind.in_(f.kinds)]
    if f.status is not None:
        out.append(status_condition(f.status, now))
    if f.staked_only:
        out.append(staked_condition(now))
    if f.subnet_id is not None:
        out.append(v.subnet_id == f.subnet_id)
    if f.node_ids:
        out.append(v.node_id.in_(f.node_ids))
    if f.node_parts:
        # Case-insensitive on both engines (SQLite's LIKE is; PostgreSQL's is not).
        lowered = func.lower(v.node_id)
        out.append(or_(*(lowered.contains(p.lower(), autoescape=True) for p in f.node_parts)))
    if f.reward_addresses:
        # reward_addresses is a JSON list of "P-..." strings: a quoted member matches whole.
        quoted = (f'"{a}"' for a in f.reward_addresses)
        out.append(or_(*(v.reward_addresses.contains(q, autoescape=True) for q in quoted)))
    if f.uptime != (None, None):
        # Only active periods have an uptime (the node's, 0 while it has none to give).
        out.append(status_condition("active", now))
    for column, (low, high) in (
        (v.delegation_fee, f.fee_ppm),
        (v.end_ts, f.ends),
        (func.coalesce(live.uptime, 0.0), f.uptime),
    ):
        if low is not None:
            out.append(column >= low)
        if high is not None:
            out.append(column <= high)
    return out


def list_periods(
    conn: Connection,
    f: PeriodFilter,
    now: int,
    after: Position | None,
    limit: int | None,
    *,
    desc: bool,
    sort: str = "blockIndex",
) -> Sequence[Row[tuple[object, ...]]]:
    """The periods `f` selects in (sort key, tx hash) order after `after`; every one when
    `limit` is None."""
    column = SQL_SORTS[sort]
    stmt = with_live().where(*_conditions(f, now))
    key = tuple_(column, v.tx_hash)
    if after is not None:
        stmt = stmt.where(key < tuple_(*after) if desc else key > tuple_(*after))
    order = (column.desc(), v.tx_hash.desc()) if desc else (column, v.tx_hash)
    stmt = stmt.order_by(*order)
    return conn.execute(stmt if limit is None else stmt.limit(limit)).all()


def period_keys(conn: Connection, f: PeriodFilter, now: int) -> Sequence[Any]:
    """What ranks the periods `f` selects (listValidators' capacity and uptime orders), every
    one: the status columns, the SQL sort keys and the node's uptime, nothing to serve."""
    stmt = (
        select(
            v.tx_hash,
            v.kind,
            v.node_id,
            v.start_ts,
            v.end_ts,
            v.block_timestamp,
            v.delegation_fee,
            v.remove_tx_hash,
            v.reward_tx_hash,
            live.uptime,
        )
        .outerjoin(primary_staker_live, live.tx_hash == v.tx_hash)
        .where(*_conditions(f, now))
    )
    return conn.execute(stmt).all()


def periods(conn: Connection, tx_hashes: Sequence[str]) -> list[Any]:
    """These periods with the node's snapshot of them, in the order given."""
    if not tx_hashes:
        return []
    stmt = with_live().where(v.tx_hash.in_(list(tx_hashes)))
    found = {str(r.tx_hash): r for r in conn.execute(stmt)}
    return [found[h] for h in tx_hashes if h in found]


def active_validators(conn: Connection, now: int) -> Sequence[Any]:
    """(tx hash, node ID, stake) of every active period of kind validator at `now`."""
    stmt = select(v.tx_hash, v.node_id, v.amount_staked).where(
        v.kind == "validator", status_condition("active", now)
    )
    return conn.execute(stmt).all()


def active_delegations(conn: Connection, now: int) -> dict[tuple[str, str], tuple[int, int]]:
    """(node ID, subnet ID) -> (count, stake) of its delegations active at `now`: what an
    active validation period of that node and subnet holds (a delegation lies within its
    validator's period, and the node's next period starts after the last one is rewarded)."""
    stmt = select(v.node_id, v.subnet_id, v.amount_staked).where(
        v.kind == "delegator", status_condition("active", now)
    )
    out: dict[tuple[str, str], tuple[int, int]] = {}
    for node_id, subnet_id, amount in conn.execute(stmt):
        key = (str(node_id), str(subnet_id))
        count, held = out.get(key, (0, 0))
        out[key] = (count + 1, held + int(amount))
    return out


def validators_of(conn: Connection, delegations: Sequence[Any]) -> dict[str, Any]:
    """delegator tx hash -> the primary validator period of its node holding its start."""
    nodes = sorted({d.node_id for d in delegations})
    if not nodes:
        return {}
    stmt = select(v.node_id, v.start_ts, v.end_ts, v.delegation_fee).where(
        v.kind == "validator", v.node_id.in_(nodes)
    )
    periods = conn.execute(stmt).all()
    out: dict[str, Any] = {}
    for d in delegations:
        for p in periods:
            if p.node_id == d.node_id and p.start_ts <= d.start_ts < p.end_ts:
                out[d.tx_hash] = p
    return out


def p_chain_asset(conn: Connection) -> str | None:
    """The asset the P-chain's UTXOs hold (AVAX of the indexed network), if any is indexed."""
    u = primary_utxos.c
    found = conn.execute(select(u.asset_id).where(u.created_on == "P").limit(1)).scalar()
    return None if found is None else str(found)


def reward_utxos(
    conn: Connection,
    f: PeriodFilter,
    after: Position | None,
    limit: int,
    *,
    desc: bool,
) -> Sequence[Any]:
    """The reward UTXOs (platform.getRewardUTXOs, kept by the indexer) of the periods of `f`'s
    kinds, reward addresses and node IDs (its only conditions read here), with their period,
    in (reward UTXO time, UTXO ID) order after `after`. Read from primary_reward_keys: each
    of `f`'s reward addresses (else its node IDs) walks its own rows from `after`, so a page
    reads about a page per key whatever the history."""
    owners = sorted(set(f.reward_addresses or f.node_ids))
    if not owners:
        raise ValueError("the historical rewards are selected by reward addresses or node IDs")
    # A key row's period has that reward address (or node): only the nodes beside the
    # addresses are left to check.
    nodes = bool(f.reward_addresses and f.node_ids)
    stmt = _reward_utxos_statement(len(owners), desc, after is not None, nodes)
    params: dict[str, Any] = {f"o{i}": o for i, o in enumerate(owners)}
    params.update(limit=limit, kinds=list(f.kinds), nodes=list(f.node_ids))
    if after is not None:
        params.update(p0=int(after[0]), p1=str(after[1]))
    return conn.execute(stmt, params).all()


@functools.lru_cache(maxsize=64)
def _reward_utxos_statement(n: int, desc: bool, paged: bool, nodes: bool) -> Select[Any]:
    """The page of reward UTXOs of n owners, built once per shape (a statement built per
    request leaves hundreds of reference cycles for the collector): every value is a bound
    parameter (o0..on-1 the owners, kinds, nodes, p0 and p1 the position after, limit)."""
    u, k = primary_utxos.c, primary_reward_keys.c
    key = [k.rewarded_at, k.utxo_id]
    conds: list[ColumnElement[bool]] = [
        u.reward_type.is_not(None),
        v.kind.in_(bindparam("kinds", expanding=True)),
    ]
    if nodes:
        conds.append(v.node_id.in_(bindparam("nodes", expanding=True)))
    conds += after_key(key, (bindparam("p0"), bindparam("p1")) if paged else None, desc)
    branches = [
        select(*key)
        .join(primary_utxos, u.utxo_id == k.utxo_id)
        .join(primary_validations, v.tx_hash == u.tx_hash)
        .where(k.owner == bindparam(f"o{i}"), *conds)
        for i in range(n)
    ]
    top = tops_of(branches, key, desc, bindparam("limit"))
    stmt = (
        select(
            u.utxo_id,
            u.output_index,
            u.asset_id,
            u.amount,
            u.addresses,
            u.reward_type,
            u.block_timestamp.label("rewarded_at"),
            v.tx_hash,
            v.node_id,
            v.amount_staked,
            v.start_ts,
            v.end_ts,
            v.reward_tx_hash,
        )
        .select_from(top)
        .join(primary_utxos, u.utxo_id == top.c.utxo_id)
        .join(primary_validations, v.tx_hash == u.tx_hash)
    )
    order = ordered([top.c.rewarded_at, top.c.utxo_id], desc)
    return stmt.order_by(*order).limit(bindparam("limit"))
