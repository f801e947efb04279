"""The webhooks' rows: each API key's webhooks, their addresses, their delivery cursors and the
key's signing secret.

Stage: store. The API writes the configuration (api/webhooks/), the delivery worker reads it and
moves the cursors (delivery/). Every read and change of the API names the owner, so a key never
reaches another key's webhook: a webhook of another owner is "not found", like a missing one.

Invariant: a cursor moves forward only through `advance`, which names the position it moves
from: a rewind (or any other move) in between makes it a no-op, so a worker that delivered an
event of a rewound webhook cannot move the cursor past the rewind.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    Select,
    and_,
    bindparam,
    delete,
    func,
    or_,
    select,
    update,
)

from avadata.store import dialect
from avadata.store.cursors import get_cursor
from avadata.store.primary import webhook_events
from avadata.store.queries.keyset import AnyRow
from avadata.store.schema import (
    webhook_addresses,
    webhook_scopes,
    webhook_secrets,
    webhooks,
)
from avadata.store.webhooks import lease

# A cursor's tx index past any real one: "every transaction of this block was delivered".
BLOCK_DONE = 2**31 - 1
# Ids per IN list: well under both engines' bound parameter limits.
_ID_CHUNK = 500


@dataclass(frozen=True, slots=True)
class Webhook:
    webhook_id: str
    owner: str
    event_type: str
    chain_id: int
    url: str
    name: str
    description: str
    status: str
    created_at_ms: int
    include_internal_txs: bool
    include_logs: bool
    event_signatures: tuple[str, ...]
    cursor: tuple[int, int]
    # Primary-network webhooks only (webhook_scopes): what they watch; None for EVM ones.
    scope: Scope | None = None

    @property
    def follows(self) -> int | str:
        """The chain whose head the webhook's cursor walks: an EVM chain ID, or P / X."""
        return self.chain_id if self.scope is None else self.scope.chain


@dataclass(frozen=True, slots=True)
class Scope:
    """A primary-network webhook's network (as the request named it), chain key (P or X) and
    the request's metadata, as JSON."""

    network: str
    chain: str
    metadata: str


@dataclass(frozen=True, slots=True)
class NewWebhook:
    """A creation request, validated by the API (addresses lower-case)."""

    event_type: str
    chain_id: int
    url: str
    name: str
    description: str
    include_internal_txs: bool
    include_logs: bool
    event_signatures: tuple[str, ...]
    addresses: tuple[str, ...]
    scope: Scope | None = None


def _webhook(r: AnyRow) -> Webhook:
    return Webhook(
        webhook_id=r.webhook_id,
        owner=r.owner,
        event_type=r.event_type,
        chain_id=int(r.chain_id),
        url=r.url,
        name=r.name,
        description=r.description,
        status=r.status,
        created_at_ms=int(r.created_at_ms),
        include_internal_txs=bool(r.include_internal_txs),
        include_logs=bool(r.include_logs),
        event_signatures=tuple(json.loads(r.event_signatures)),
        cursor=(int(r.cursor_block), int(r.cursor_tx)),
        scope=None if r.scope_chain is None else Scope(r.network, r.scope_chain, r.scope_metadata),
    )


def _select() -> Select[Any]:
    s = webhook_scopes.c
    return select(
        webhooks, s.network, s.chain.label("scope_chain"), s.metadata.label("scope_metadata")
    ).select_from(webhooks.outerjoin(webhook_scopes, s.webhook_id == webhooks.c.webhook_id))


def create(engine: Engine, owner: str, new: NewWebhook, webhook_id: str) -> Webhook:
    """Insert a webhook whose cursor is the chain's indexed head: it reports what comes next
    (`rewind` reaches back)."""
    with engine.begin() as conn:
        if new.scope is None:
            cursor = get_cursor(conn, new.chain_id)
            head = None if cursor is None else cursor.block_number
        else:
            head = webhook_events.primary_head(conn, new.scope.chain)
            conn.execute(
                webhook_scopes.insert().values(
                    webhook_id=webhook_id,
                    network=new.scope.network,
                    chain=new.scope.chain,
                    metadata=new.scope.metadata,
                )
            )
        conn.execute(
            webhooks.insert().values(
                webhook_id=webhook_id,
                owner=owner,
                event_type=new.event_type,
                chain_id=new.chain_id,
                url=new.url,
                name=new.name,
                description=new.description,
                status="active",
                created_at_ms=int(time.time() * 1000),
                include_internal_txs=new.include_internal_txs,
                include_logs=new.include_logs,
                event_signatures=json.dumps(list(new.event_signatures)),
                cursor_block=-1 if head is None else head,
                cursor_tx=BLOCK_DONE,
            )
        )
        _add_addresses(conn, webhook_id, new.addresses)
        found = _get(conn, owner, webhook_id)
    assert found is not None
    return found


def _get(conn: Connection, owner: str | None, webhook_id: str) -> Webhook | None:
    stmt = _select().where(webhooks.c.webhook_id == webhook_id)
    if owner is not None:
        stmt = stmt.where(webhooks.c.owner == owner)
    row = conn.execute(stmt).first()
    return None if row is None else _webhook(row)


def get(engine: Engine, owner: str | None, webhook_id: str) -> Webhook | None:
    """The webhook of `owner` with this id (None: absent or another key's); owner None: any
    owner (the delivery worker)."""
    with engine.connect() as conn:
        return _get(conn, owner, webhook_id)


def list_page(
    engine: Engine,
    owner: str,
    status: str | None,
    after: tuple[int, str] | None,
    limit: int,
) -> list[Webhook]:
    """`owner`'s webhooks oldest first, after the (created_at_ms, id) position."""
    c = webhooks.c
    stmt = _select().where(c.owner == owner)
    if status is not None:
        stmt = stmt.where(c.status == status)
    if after is not None:
        at, wid = after
        stmt = stmt.where(
            or_(c.created_at_ms > at, and_(c.created_at_ms == at, c.webhook_id > wid))
        )
    stmt = stmt.order_by(c.created_at_ms, c.webhook_id).limit(limit)
    with engine.connect() as conn:
        return [_webhook(r) for r in conn.execute(stmt)]


def update_fields(engine: Engine, owner: str, webhook_id: str, **values: object) -> Webhook | None:
    """Set the given columns (name, description, url, status, include_*); None when absent."""
    with engine.begin() as conn:
        if values:
            conn.execute(
                update(webhooks)
                .where(webhooks.c.webhook_id == webhook_id, webhooks.c.owner == owner)
                .values(**values)
            )
        return _get(conn, owner, webhook_id)


def rewind(engine: Engine, owner: str, webhook_id: str, block_number: int) -> Webhook | None:
    """Deliver again from the first transaction of `block_number` on."""
    return update_fields(
        engine, owner, webhook_id, cursor_block=block_number - 1, cursor_tx=BLOCK_DONE
    )


def _add_addresses(conn: Connection, webhook_id: str, addresses: Iterable[str]) -> None:
    rows = [{"webhook_id": webhook_id, "address": a} for a in sorted(set(addresses))]
    if rows:
        conn.execute(dialect.insert_or_ignore(conn, webhook_addresses), rows)


def change_addresses(
    engine: Engine, owner: str, webhook_id: str, add: Sequence[str], remove: Sequence[str]
) -> Webhook | None:
    with engine.begin() as conn:
        found = _get(conn, owner, webhook_id)
        if found is None:
            return None
        _add_addresses(conn, webhook_id, add)
        if remove:
            conn.execute(
                delete(webhook_addresses).where(
                    webhook_addresses.c.webhook_id == webhook_id,
                    webhook_addresses.c.address.in_(sorted(set(remove))),
                )
            )
        return found


def addresses(conn_or_engine: Engine | Connection, webhook_id: str) -> list[str]:
    stmt = (
        select(webhook_addresses.c.address)
        .where(webhook_addresses.c.webhook_id == webhook_id)
        .order_by(webhook_addresses.c.address)
    )
    if isinstance(conn_or_engine, Connection):
        return list(conn_or_engine.execute(stmt).scalars())
    with conn_or_engine.connect() as conn:
        return list(conn.execute(stmt).scalars())


def count_addresses(engine: Engine, webhook_id: str) -> int:
    stmt = select(func.count()).where(webhook_addresses.c.webhook_id == webhook_id)
    with engine.connect() as conn:
        return int(conn.execute(stmt).scalar_one())


def active_ids(engine: Engine) -> list[str]:
    """Every active webhook's id."""
    stmt = select(webhooks.c.webhook_id).where(webhooks.c.status == "active")
    with engine.connect() as conn:
        return list(conn.execute(stmt).scalars())


def active(conn: Connection) -> list[Webhook]:
    """Every active webhook, configuration and cursor (the delivery worker's roster: one
    query for all of them)."""
    stmt = _select().where(webhooks.c.status == "active")
    return [_webhook(r) for r in conn.execute(stmt)]


def addresses_of(conn: Connection, webhook_ids: Sequence[str]) -> dict[str, list[str]]:
    """The watched addresses of each of `webhook_ids`, sorted (one query per chunk of ids)."""
    out: dict[str, list[str]] = {w: [] for w in webhook_ids}
    c = webhook_addresses.c
    ids = sorted(out)
    for i in range(0, len(ids), _ID_CHUNK):
        stmt = (
            select(c.webhook_id, c.address)
            .where(c.webhook_id.in_(ids[i : i + _ID_CHUNK]))
            .order_by(c.webhook_id, c.address)
        )
        for wid, address in conn.execute(stmt):
            out[wid].append(address)
    return out


def secrets_of(conn: Connection, owners: Iterable[str]) -> dict[str, str]:
    """The signing secrets of `owners` that have one."""
    wanted = sorted(set(owners))
    out: dict[str, str] = {}
    c = webhook_secrets.c
    for i in range(0, len(wanted), _ID_CHUNK):
        stmt = select(c.owner, c.secret).where(c.owner.in_(wanted[i : i + _ID_CHUNK]))
        out.update((str(o), str(s)) for o, s in conn.execute(stmt))
    return out


def advance(
    engine: Engine,
    webhook_id: str,
    old: tuple[int, int],
    new: tuple[int, int],
    holder: str | None = None,
) -> bool:
    """Move the cursor from `old` to `new`; False (and no change) when it is no longer at
    `old` (rewound meanwhile), or, given a `holder`, when it no longer holds the delivery
    lease (another process delivers now: its cursor moves win)."""
    c = webhooks.c
    with engine.begin() as conn:
        if holder is not None and not lease.held(conn, lease.DELIVERY, holder):
            return False
        done = conn.execute(
            update(webhooks)
            .where(c.webhook_id == webhook_id, c.cursor_block == old[0], c.cursor_tx == old[1])
            .values(cursor_block=new[0], cursor_tx=new[1])
        )
    return bool(done.rowcount)


Move = tuple[str, tuple[int, int], tuple[int, int]]


def advance_many(engine: Engine, moves: Sequence[Move], holder: str) -> set[str]:
    """`advance` for many webhooks in one transaction (the delivery worker's round): each
    (webhook id, old, new) moves when the cursor is still at `old`; nothing moves unless
    `holder` holds the delivery lease. Returns the ids that moved."""
    if not moves:
        return set()
    c = webhooks.c
    stmt = (
        update(webhooks)
        .where(
            c.webhook_id == bindparam("wid"),
            c.cursor_block == bindparam("old_block"),
            c.cursor_tx == bindparam("old_tx"),
        )
        .values(cursor_block=bindparam("new_block"), cursor_tx=bindparam("new_tx"))
    )
    rows = [
        {"wid": w, "old_block": o[0], "old_tx": o[1], "new_block": n[0], "new_tx": n[1]}
        for w, o, n in moves
    ]
    wanted = {w: n for w, _o, n in moves}
    with engine.begin() as conn:
        if not lease.held(conn, lease.DELIVERY, holder):
            return set()
        conn.execute(stmt, rows)
        # Which moved: read back in the same transaction (an executemany's row count is a
        # total, and not every driver gives it). A rewind never lands on a moved-to position
        # (its tx index is BLOCK_DONE, an acknowledged one is a transaction's).
        ids = sorted(wanted)
        moved: set[str] = set()
        for i in range(0, len(ids), _ID_CHUNK):
            found = conn.execute(
                select(c.webhook_id, c.cursor_block, c.cursor_tx).where(
                    c.webhook_id.in_(ids[i : i + _ID_CHUNK])
                )
            )
            moved.update(w for w, b, t in found if (int(b), int(t)) == wanted[w])
    return moved


def rotate_secret(engine: Engine, owner: str) -> str:
    """A new signing secret for `owner`'s webhooks (32 random bytes as 64 hex digits)."""
    secret = secrets.token_hex(32)
    with engine.begin() as conn:
        conn.execute(
            dialect.upsert(
                conn,
                webhook_secrets,
                keys=("owner",),
                set_=lambda ex: {"secret": ex.secret, "created_at": ex.created_at},
            ),
            {"owner": owner, "secret": secret, "created_at": int(time.time())},
        )
    return secret


def read_secret(engine: Engine, owner: str) -> str | None:
    stmt = select(webhook_secrets.c.secret).where(webhook_secrets.c.owner == owner)
    with engine.connect() as conn:
        found = conn.execute(stmt).scalar_one_or_none()
    return None if found is None else str(found)


def ensure_secret(writer: Engine, owner: str) -> str:
    """`owner`'s secret, created on first need (a webhook is never sent unsigned); a
    concurrent creator's secret wins over ours. Through a writer engine: read the secret with
    `read_secret` first, where a reader can."""
    with writer.begin() as conn:
        conn.execute(
            dialect.insert_or_ignore(conn, webhook_secrets),
            {"owner": owner, "secret": secrets.token_hex(32), "created_at": int(time.time())},
        )
        found = conn.execute(
            select(webhook_secrets.c.secret).where(webhook_secrets.c.owner == owner)
        ).scalar_one()
    return str(found)
