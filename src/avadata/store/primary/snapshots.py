"""The node's snapshots of what no block carries: current stakers (replaced as a whole) and the
L1 validators' balances (each answer over the previous one).

Stage: store.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Engine, delete, false, or_, select

from avadata.records.primary import L1ValidatorLive, StakerLive
from avadata.store import dialect
from avadata.store.schema import (
    primary_l1_validator_live,
    primary_l1_validators,
    primary_snapshot_counts,
    primary_staker_live,
)

STAKERS = "stakers"  # primary_snapshot_counts' row of the current stakers' snapshot


def replace_staker_live(engine: Engine, live: Sequence[StakerLive]) -> None:
    """The node's current stakers as one snapshot: the old one goes in the same transaction,
    which counts the snapshot (what a value computed from it is kept by)."""
    with engine.begin() as conn:
        conn.execute(delete(primary_staker_live))
        if live:
            conn.execute(primary_staker_live.insert(), [s._asdict() for s in live])
        counted = dialect.upsert(
            conn,
            primary_snapshot_counts,
            keys=("name",),
            set_=lambda ex: {"taken": primary_snapshot_counts.c.taken + 1},
        )
        conn.execute(counted, {"name": STAKERS, "taken": 1})


def l1_validations_to_ask(engine: Engine) -> list[str]:
    """L1 validations whose node view may still change: a removed one never comes back."""
    v, live = primary_l1_validators.c, primary_l1_validator_live.c
    stmt = (
        select(v.validation_id)
        .outerjoin(primary_l1_validator_live, live.validation_id == v.validation_id)
        .where(or_(live.removed.is_(None), live.removed == false()))
        .order_by(v.validation_id)
    )
    with engine.connect() as conn:
        return [str(r) for r in conn.execute(stmt).scalars()]


def upsert_l1_live(engine: Engine, live: Sequence[L1ValidatorLive]) -> None:
    """The node's answers for these L1 validations, over the previous ones."""
    if not live:
        return
    with engine.begin() as conn:
        stmt = dialect.upsert(
            conn,
            primary_l1_validator_live,
            keys=("validation_id",),
            set_=lambda ex: {"balance": ex.balance, "removed": ex.removed, "height": ex.height},
        )
        conn.execute(stmt, [x._asdict() for x in live])
