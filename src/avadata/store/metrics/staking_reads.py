"""Reads behind the staking metrics and the subnet validators' reward addresses: the
validation periods of `primary_validations` (metrics/staking.py holds the arithmetic).

Stage: store (reads only).
"""

from __future__ import annotations

from sqlalchemy import Connection, and_, case, exists, or_, select, tuple_

from avadata.metrics.staking import Period
from avadata.records.primary import PRIMARY_SUBNET
from avadata.store.primary.queries.validators import p_chain_now
from avadata.store.schema import primary_l1_validators, primary_validations

v = primary_validations.c
# A period ends at its end time, or at its removal if that came first.
PERIOD_END = case(
    (and_(v.remove_timestamp.is_not(None), v.remove_timestamp < v.end_ts), v.remove_timestamp),
    else_=v.end_ts,
)


def kinds(subnet_id: str, delegators: bool) -> tuple[str, ...]:
    """The period kinds a subnet's validator (or delegator) series counts."""
    if subnet_id == PRIMARY_SUBNET:
        return ("delegator",) if delegators else ("validator",)
    return () if delegators else ("subnet_validator",)


def known_subnet(conn: Connection, subnet_id: str) -> bool:
    """Whether the store knows the subnet: the primary network, or any validation of it."""
    if subnet_id == PRIMARY_SUBNET:
        return True
    l1 = primary_l1_validators.c
    q = select(
        or_(
            exists().where(v.subnet_id == subnet_id),
            exists().where(l1.subnet_id == subnet_id),
        )
    )
    return bool(conn.execute(q).scalar())


def periods(conn: Connection, subnet_id: str, delegators: bool) -> list[Period]:
    """Every validation period of the subnet's validators (or delegators)."""
    chosen = kinds(subnet_id, delegators)
    if not chosen:
        return []
    q = select(v.start_ts, PERIOD_END, v.amount_staked).where(
        v.subnet_id == subnet_id, v.kind.in_(chosen)
    )
    return [Period(int(s), int(e), int(w)) for s, e, w in conn.execute(q)]


def reward_address_page(
    conn: Connection,
    subnet_id: str,
    start: int | None,
    end: int | None,
    after: tuple[int, str] | None,
    limit: int,
) -> list[tuple[int, str, str]]:
    """(AddValidatorTx time, tx hash, reward addresses JSON) of the subnet's validation
    periods that overlap [start, end], in (time, hash) order, after the keyset position."""
    where = [v.subnet_id == subnet_id, v.kind.in_(kinds(subnet_id, False))]
    if start is not None:
        where.append(PERIOD_END > start)
    if end is not None:
        where.append(v.start_ts <= end)
    if after is not None:
        where.append(tuple_(v.block_timestamp, v.tx_hash) > tuple_(*after))
    q = (
        select(v.block_timestamp, v.tx_hash, v.reward_addresses)
        .where(*where)
        .order_by(v.block_timestamp, v.tx_hash)
        .limit(limit)
    )
    return [(int(ts), str(tx), str(addrs)) for ts, tx, addrs in conn.execute(q)]


def newest(conn: Connection) -> int | None:
    """The P-chain's newest indexed time (what the newest day closes at)."""
    return p_chain_now(conn)
