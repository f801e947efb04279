"""The delivery lease: which one process delivers the webhooks when several host a delivery
worker (`avadata serve` and `avadata index` both do, and a deployment may run two serves).

Stage: store. One row per lease name: its holder and the time (epoch ms) it expires. Taking
and renewing are one conditional UPDATE (the row is free, expired or already ours), atomic on
both engines: SQLite runs one writer at a time; PostgreSQL re-checks the WHERE of a row another
transaction changed meanwhile (READ COMMITTED), so two takers never both see a free row.

Invariant: at any wall-clock time at most one holder has an unexpired lease. A holder that
dies (kill -9) keeps it until it expires; then the next taker gets it. The hosts' clocks must
agree to well within the lease's length (docs/webhooks.md).
"""

from __future__ import annotations

import time

from sqlalchemy import Connection, Engine, or_, select, update

from avadata.store import dialect
from avadata.store.schema import webhook_leases

DELIVERY = "webhook-delivery"


def _now_ms() -> int:
    return int(time.time() * 1000)


def take(engine: Engine, name: str, holder: str, ttl_s: float) -> bool:
    """Take the lease, or renew it when `holder` has it: True when `holder` now holds it for
    `ttl_s` from now."""
    now = _now_ms()
    c = webhook_leases.c
    with engine.begin() as conn:
        conn.execute(
            dialect.insert_or_ignore(conn, webhook_leases),
            {"name": name, "holder": "", "expires_at_ms": 0},
        )
        done = conn.execute(
            update(webhook_leases)
            .where(c.name == name, or_(c.holder == holder, c.expires_at_ms <= now))
            .values(holder=holder, expires_at_ms=now + int(ttl_s * 1000))
        )
    return bool(done.rowcount)


def release(engine: Engine, name: str, holder: str) -> None:
    """Give the lease up at once (a clean stop), when `holder` has it."""
    c = webhook_leases.c
    with engine.begin() as conn:
        conn.execute(
            update(webhook_leases).where(c.name == name, c.holder == holder).values(expires_at_ms=0)
        )


def held(conn: Connection, name: str, holder: str) -> bool:
    """Whether `holder` holds the lease now (inside a caller's transaction: a cursor move
    fenced by the lease)."""
    c = webhook_leases.c
    row = conn.execute(
        select(c.expires_at_ms).where(c.name == name, c.holder == holder)
    ).scalar_one_or_none()
    return row is not None and int(row) > _now_ms()


def holder(engine: Engine, name: str) -> tuple[str, int] | None:
    """(holder, expires_at_ms) of the lease, None when it was never taken."""
    c = webhook_leases.c
    with engine.connect() as conn:
        row = conn.execute(select(c.holder, c.expires_at_ms).where(c.name == name)).first()
    return None if row is None else (str(row[0]), int(row[1]))
