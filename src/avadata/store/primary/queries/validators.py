"""Keyset queries over validation periods (GET /v1/networks/{network}/validators/{nodeId}).

Order key: (start_ts, tx_hash). A period's status depends on the P-chain's current time
`now` (the newest indexed P block's): removed, completed (rewarded, or a subnet validator
past its end), pending (not started), else active.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Row, and_, func, not_, or_, select, tuple_
from sqlalchemy.sql import ColumnElement, Select

from avadata.records.primary import PRIMARY_SUBNET as PRIMARY
from avadata.store.primary.snapshots import STAKERS
from avadata.store.schema import (
    primary_cursors,
    primary_snapshot_counts,
    primary_staker_live,
    primary_supply,
    primary_txs,
    primary_validations,
)

Position = tuple[int | str, ...]
STATUSES = ("active", "pending", "completed", "removed")
v = primary_validations.c


def p_chain_now(conn: Connection) -> int | None:
    """The P-chain's current time as far as the store knows: its newest block's."""
    t = primary_txs.c
    value = conn.execute(select(func.max(t.block_timestamp)).where(t.blockchain_id == "P")).scalar()
    newest_period = conn.execute(select(func.max(v.block_timestamp))).scalar()
    known = [int(x) for x in (value, newest_period) if x is not None]
    return max(known) if known else None


def p_chain_cursor(conn: Connection) -> int | None:
    """The P-chain's cursor (its last indexed container): it moves in the transaction that
    writes the validation periods, so a value computed from them is kept by it
    (api/derived.py)."""
    c = primary_cursors.c
    stmt = select(c.container_index).where(c.blockchain_id == "P")
    cursor = conn.execute(stmt).scalar_one_or_none()
    return None if cursor is None else int(cursor)


def stakers_snapshots(conn: Connection) -> int:
    """How many snapshots of the node's current stakers were taken (their uptimes change
    with each, not with the P-chain's blocks)."""
    c = primary_snapshot_counts.c
    stmt = select(c.taken).where(c.name == STAKERS)
    return int(conn.execute(stmt).scalar_one_or_none() or 0)


def _ended(now: Any) -> ColumnElement[bool]:
    """Rewarded (a primary staker's stake is returned with its reward tx), or a subnet
    validator past its end (nothing to return)."""
    return or_(v.reward_tx_hash.is_not(None), and_(v.kind == "subnet_validator", v.end_ts <= now))


def staked_condition(now: Any) -> ColumnElement[bool]:
    """A period whose stake is still locked at `now`: neither removed nor ended (active or
    pending): what transactions:listStaking lists."""
    return and_(v.remove_tx_hash.is_(None), not_(_ended(now)))


def status_condition(status: str, now: int) -> ColumnElement[bool]:
    removed = v.remove_tx_hash.is_not(None)
    ended = _ended(now)
    if status == "removed":
        return removed
    if status == "completed":
        return and_(not_(removed), ended)
    if status == "pending":
        return and_(not_(removed), not_(ended), v.start_ts > now)
    return and_(not_(removed), not_(ended), v.start_ts <= now)


def status_of(row: Row[tuple[object, ...]], now: int) -> str:
    if row.remove_tx_hash is not None:
        return "removed"
    if row.reward_tx_hash is not None or (
        row.kind == "subnet_validator" and int(row.end_ts) <= now  # type: ignore[call-overload]
    ):
        return "completed"
    return "pending" if int(row.start_ts) > now else "active"  # type: ignore[call-overload]


def with_live() -> Select[Any]:
    """Validation periods with what the node's snapshot says of the current ones."""
    live = primary_staker_live.c
    return select(
        primary_validations,
        live.potential_reward,
        live.delegatee_reward,
        live.uptime,
        live.connected,
    ).outerjoin(primary_staker_live, live.tx_hash == v.tx_hash)


def list_validations(
    conn: Connection,
    node_id: str,
    now: int,
    after: Position | None,
    limit: int,
    *,
    desc: bool,
    status: str | None,
) -> Sequence[Row[tuple[object, ...]]]:
    stmt = with_live().where(v.node_id == node_id, v.kind != "delegator")
    if status is not None:
        stmt = stmt.where(status_condition(status, now))
    key = tuple_(v.start_ts, v.tx_hash)
    if after is not None:
        stmt = stmt.where(key < tuple_(*after) if desc else key > tuple_(*after))
    order = (v.start_ts.desc(), v.tx_hash.desc()) if desc else (v.start_ts, v.tx_hash)
    return conn.execute(stmt.order_by(*order).limit(limit)).all()


def delegations(conn: Connection, periods: Sequence[Row[tuple[object, ...]]]) -> list[Any]:
    """(node ID, subnet ID, start, stake) of the delegator periods that start within each
    validator period of the same node and subnet."""
    if not periods:
        return []
    conds = [
        and_(
            v.node_id == p.node_id,
            v.subnet_id == p.subnet_id,
            v.start_ts >= p.start_ts,
            v.start_ts < p.end_ts,
        )
        for p in periods
    ]
    stmt = select(v.node_id, v.subnet_id, v.start_ts, v.amount_staked).where(
        v.kind == "delegator", or_(*conds)
    )
    return list(conn.execute(stmt).all())


def active_stake(conn: Connection, subnet_id: str, now: int) -> int:
    """Total weight of the subnet's active validators at `now` (for stakePercentage)."""
    total = 0
    stmt = select(v.amount_staked).where(
        v.subnet_id == subnet_id, v.kind != "delegator", status_condition("active", now)
    )
    for (amount,) in conn.execute(stmt):
        total += int(amount)
    return total


def stake_periods(conn: Connection, tx_hashes: Sequence[str]) -> dict[str, tuple[int, int]]:
    """tx hash -> (start, end) of the staking periods among these txs: when their staked
    UTXOs were locked and when they unlock."""
    hashes = sorted(set(tx_hashes))
    if not hashes:
        return {}
    stmt = select(v.tx_hash, v.start_ts, v.end_ts).where(v.tx_hash.in_(hashes))
    return {str(r.tx_hash): (int(r.start_ts), int(r.end_ts)) for r in conn.execute(stmt)}


def active_primary_stakes(conn: Connection, now: int) -> Sequence[Any]:
    """The primary network's active validators and delegators at `now`: kind, amount, and
    potential reward (the node's figure, else the formula's)."""
    live = primary_staker_live.c
    stmt = (
        select(v.kind, v.amount_staked, live.potential_reward, v.formula_reward)
        .outerjoin(primary_staker_live, live.tx_hash == v.tx_hash)
        .where(v.kind.in_(("validator", "delegator")), status_condition("active", now))
    )
    return conn.execute(stmt).all()


def current_supply(conn: Connection) -> int | None:
    """The P-chain supply the node last reported (platform.getCurrentSupply), if any."""
    s = primary_supply.c
    value = conn.execute(select(s.supply).where(s.subnet_id == PRIMARY)).scalar()
    return None if value is None else int(value)


def staking_facts(conn: Connection, tx_hashes: Sequence[str]) -> dict[str, Any]:
    """Period facts of the staking txs among `tx_hashes` (reward tx, rewards, the node's
    potential reward while current, the formula's), by tx hash."""
    if not tx_hashes:
        return {}
    live = primary_staker_live.c
    stmt = (
        select(
            v.tx_hash,
            v.reward_tx_hash,
            v.reward_addresses,
            v.validation_reward,
            v.formula_reward,
            live.potential_reward,
        )
        .outerjoin(primary_staker_live, live.tx_hash == v.tx_hash)
        .where(v.tx_hash.in_(list(tx_hashes)))
    )
    return {str(r.tx_hash): r for r in conn.execute(stmt)}
