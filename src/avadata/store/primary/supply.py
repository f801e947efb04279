"""Potential rewards of primary stakers from the reward formula: the node's supply anchor in,
the staking history out of the store, each staker's `formula_reward` back in.

The replay and the bisection are decode/primary_supply.py's; this module only moves rows.
Approximations (docs/primary.md): a pre-Durango staker counts from its start time, ordered
among same-second events by the block that added it; a staker whose reward tx was indexed
before revision 0009 (`reward_committed` NULL) counts as paid.
"""

from __future__ import annotations

from sqlalchemy import Engine, and_, bindparam, select, update
from sqlalchemy.orm import aliased

from avadata.decode.primary.stakers import PRIMARY_SUBNET
from avadata.decode.primary.supply import SupplyEvent, replay, solve_start_supply
from avadata.store import dialect
from avadata.store.schema import primary_supply, primary_txs, primary_validations

v = primary_validations.c


def save_supply_anchor(engine: Engine, supply: int, height: int) -> None:
    """The node's current supply at its height; the start supply found so far stays."""
    with engine.begin() as conn:
        stmt = dialect.upsert(
            conn,
            primary_supply,
            keys=("subnet_id",),
            set_=lambda ex: {"supply": ex.supply, "height": ex.height},
        )
        conn.execute(stmt, [{"subnet_id": PRIMARY_SUBNET, "supply": supply, "height": height}])


def supply_events(engine: Engine) -> list[SupplyEvent]:
    """Every primary staker's add and every aborted reward, in chain order."""
    added = aliased(primary_txs)
    ended = aliased(primary_txs)
    on_p = added.c.blockchain_id == "P"
    adds = (
        select(
            v.tx_hash,
            v.start_ts,
            v.end_ts,
            v.amount_staked,
            added.c.block_timestamp,
            added.c.block_number,
            added.c.tx_index,
        )
        .join(added, and_(on_p, added.c.tx_hash == v.tx_hash))
        .where(v.kind.in_(("validator", "delegator")), v.subnet_id == PRIMARY_SUBNET)
    )
    forfeits = (
        select(v.tx_hash, ended.c.block_timestamp, ended.c.block_number, ended.c.tx_index)
        .join(ended, and_(ended.c.blockchain_id == "P", ended.c.tx_hash == v.reward_tx_hash))
        .where(v.reward_committed.is_(False), v.subnet_id == PRIMARY_SUBNET)
    )
    keyed: list[tuple[tuple[int, int, int], SupplyEvent]] = []
    with engine.connect() as conn:
        for r in conn.execute(adds):
            # A staker counts from its start: its block's time since Durango, later before.
            at = max(int(r.start_ts), int(r.block_timestamp))
            height = int(r.block_number)
            event = SupplyEvent(
                "add", r.tx_hash, height, int(r.end_ts) - int(r.start_ts), int(r.amount_staked)
            )
            keyed.append(((at, height, int(r.tx_index)), event))
        for f in conn.execute(forfeits):
            height = int(f.block_number)
            event = SupplyEvent("forfeit", f.tx_hash, height)
            keyed.append(((int(f.block_timestamp), height, int(f.tx_index)), event))
    keyed.sort(key=lambda k: k[0])
    return [e for _, e in keyed]


def estimate_rewards(engine: Engine) -> bool:
    """Recompute every primary staker's formula reward from the anchor; False (and nothing
    written) without an anchor or when no start supply meets it."""
    with engine.connect() as conn:
        anchor = conn.execute(
            select(primary_supply).where(primary_supply.c.subnet_id == PRIMARY_SUBNET)
        ).first()
    if anchor is None:
        return False
    events = supply_events(engine)
    supply, height = int(anchor.supply), int(anchor.height)
    start = None if anchor.start_supply is None else int(anchor.start_supply)
    # The start supply found once stays right while the history grows: check, not re-solve.
    if start is None or replay(events, start, height)[1] != supply:
        start = solve_start_supply(events, supply, height)
        if start is None:
            return False
    rewards, _ = replay(events, start)
    with engine.begin() as conn:
        stored = dict(
            conn.execute(select(v.tx_hash, v.formula_reward).where(v.formula_reward.is_not(None)))
            .tuples()
            .all()
        )
        changed = [
            {"b_tx_hash": tx, "formula_reward": reward}
            for tx, reward in rewards.items()
            if stored.get(tx) is None or int(stored[tx]) != reward
        ]
        if changed:
            conn.execute(
                update(primary_validations)
                .where(v.tx_hash == bindparam("b_tx_hash"))
                .values(formula_reward=bindparam("formula_reward")),
                changed,
            )
        conn.execute(
            update(primary_supply)
            .where(primary_supply.c.subnet_id == PRIMARY_SUBNET)
            .values(start_supply=start)
        )
    return True
