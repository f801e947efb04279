"""The rows behind the supply replay: the node's supply anchor, the staking history, and each
primary staker's `formula_reward` written back.

Stage: store. The replay and the bisection are decode/primary/supply.py's, called by
indexer/primary/supply.py; this module only moves rows. A staker whose reward tx was indexed
before revision 0009 (`reward_committed` NULL) counts as paid (docs/primary.md).
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import Engine, and_, bindparam, select, update
from sqlalchemy.orm import aliased

from avadata.records.primary import PRIMARY_SUBNET, RewardForfeited, StakerAdded, SupplyAnchor
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


def supply_anchor(engine: Engine) -> SupplyAnchor | None:
    with engine.connect() as conn:
        anchor = conn.execute(
            select(primary_supply).where(primary_supply.c.subnet_id == PRIMARY_SUBNET)
        ).first()
    if anchor is None:
        return None
    start = None if anchor.start_supply is None else int(anchor.start_supply)
    return SupplyAnchor(int(anchor.supply), int(anchor.height), start)


def staking_history(engine: Engine) -> tuple[list[StakerAdded], list[RewardForfeited]]:
    """Every primary staker's add, and every reward tx that did not pay its staker."""
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
    with engine.connect() as conn:
        return [
            StakerAdded(
                r.tx_hash,
                int(r.start_ts),
                int(r.end_ts),
                int(r.amount_staked),
                int(r.block_timestamp),
                int(r.block_number),
                int(r.tx_index),
            )
            for r in conn.execute(adds)
        ], [
            RewardForfeited(f.tx_hash, int(f.block_timestamp), int(f.block_number), int(f.tx_index))
            for f in conn.execute(forfeits)
        ]


def save_formula_rewards(engine: Engine, rewards: Mapping[str, int], start_supply: int) -> None:
    """Each staker's formula reward where it changed, and the start supply that gave them."""
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
            .values(start_supply=start_supply)
        )
