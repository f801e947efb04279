"""What the primary-network indexer asks the store while it completes a batch: facts an earlier
batch wrote that a later tx names only by ID.

Stage: store.
"""

from __future__ import annotations

from collections.abc import Sequence

import orjson
from sqlalchemy import Engine, select

from avadata.records.primary import Owner
from avadata.store.primary.prepare import owner_of
from avadata.store.schema import primary_l1_validators, primary_validations


def staker_kinds(engine: Engine, tx_hashes: Sequence[str]) -> dict[str, tuple[str, list[str]]]:
    """staking tx hash -> (kind, reward addresses) of these stored validation periods."""
    if not tx_hashes:
        return {}
    v = primary_validations.c
    stmt = select(v.tx_hash, v.kind, v.reward_addresses).where(v.tx_hash.in_(list(tx_hashes)))
    with engine.connect() as conn:
        return {
            str(r.tx_hash): (str(r.kind), orjson.loads(str(r.reward_addresses or "[]")))
            for r in conn.execute(stmt)
        }


def l1_owners(engine: Engine, validation_ids: Sequence[str]) -> dict[str, Owner | None]:
    """validation ID -> remainingBalanceOwner (None when unknown) of these stored L1
    validations."""
    if not validation_ids:
        return {}
    v = primary_l1_validators.c
    stmt = select(v.validation_id, v.remaining_balance_owner).where(
        v.validation_id.in_(sorted(validation_ids))
    )
    with engine.connect() as conn:
        return {
            str(r.validation_id): None
            if r.remaining_balance_owner is None
            else owner_of(r.remaining_balance_owner)
            for r in conn.execute(stmt)
        }
