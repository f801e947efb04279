"""Reads behind the L1 validator fee series: each L1 validation (subnet, node) and the
P-chain txs that touched it, in chain order (metrics/l1_fees.py replays them).

Stage: store (reads only).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, select

from avadata.store.schema import (
    primary_l1_validation_txs,
    primary_l1_validators,
    primary_txs,
    primary_validations,
)

_V = primary_l1_validators.c
_VT = primary_l1_validation_txs.c
_T = primary_txs.c


def validations(conn: Connection) -> list[tuple[str, str, str]]:
    """(validation ID, subnet ID, node ID) of every L1 validation."""
    q = select(_V.validation_id, _V.subnet_id, _V.node_id).order_by(_V.validation_id)
    return [(str(a), str(b), str(c)) for a, b, c in conn.execute(q)]


def validation_txs(
    conn: Connection, validation_ids: Sequence[str] | None = None, upto: int | None = None
) -> list[tuple[str, int, str, str]]:
    """(validation ID, block time, tx type, tx body JSON) of every tx of every L1 validation
    (or of `validation_ids`; up to P-chain block `upto`), in P-chain order per validation."""
    q = (
        select(_VT.validation_id, _VT.block_timestamp, _T.tx_type, _T.body)
        .join(primary_txs, (_T.tx_hash == _VT.tx_hash) & (_T.blockchain_id == "P"))
        .order_by(_VT.validation_id, _VT.block_timestamp, _VT.block_number, _VT.tx_index)
    )
    if validation_ids is not None:
        q = q.where(_VT.validation_id.in_(list(validation_ids)))
    if upto is not None:
        q = q.where(_VT.block_number <= upto)
    return [(str(v), int(t), str(k), str(b)) for v, t, k, b in conn.execute(q)]


def validations_of(conn: Connection, by: str, keys: Sequence[str]) -> list[tuple[str, str, str]]:
    """(validation ID, subnet ID, node ID) of the L1 validations of the validators `keys`
    name (`by`: node_id or subnet_id)."""
    q = (
        select(_V.validation_id, _V.subnet_id, _V.node_id)
        .where(getattr(_V, by).in_(list(keys)))
        .order_by(_V.validation_id)
    )
    return [(str(a), str(b), str(c)) for a, b, c in conn.execute(q)]


def reward_ends(conn: Connection) -> list[int]:
    """End times of the primary stakers not rewarded (nor removed) yet: each end is a reward
    block pair the P-chain has scheduled."""
    v = primary_validations.c
    q = select(v.end_ts).where(
        v.kind.in_(("validator", "delegator")),
        v.reward_tx_hash.is_(None),
        v.remove_tx_hash.is_(None),
    )
    return sorted(int(e) for e in conn.execute(q).scalars())
