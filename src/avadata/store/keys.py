"""Data API keys and shared server secrets, kept in the store (api_keys, api_secrets).

Stage: store. A key reads `avd_<key_id>_<secret>`; only its SHA-256 is stored, so a leaked
store reveals no usable key. `key_id` is the public handle that `avadata keys list|revoke`
show and take. Writes go through a writer engine (the CLI's); the server only reads. The
page-token secret is created once by `avadata serve` (ensure_secret) and read by every API
process (stored_secret), so they all sign tokens alike.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, select, update
from sqlalchemy.exc import SQLAlchemyError

from avadata.store import dialect
from avadata.store.schema import api_keys, api_secrets

PAGE_TOKEN_SECRET = "page_token"


@dataclass(frozen=True, slots=True)
class KeyInfo:
    key_id: str
    name: str | None
    created_at: int
    revoked_at: int | None
    rate_limit: int | None


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def create_key(engine: Engine, name: str | None, rate_limit: int | None) -> tuple[str, KeyInfo]:
    """A new key: returns (the key, shown once; its stored info)."""
    key_id = secrets.token_hex(6)
    key = f"avd_{key_id}_{secrets.token_urlsafe(24)}"
    info = KeyInfo(key_id, name, int(time.time()), None, rate_limit)
    with engine.begin() as conn:
        conn.execute(
            api_keys.insert().values(
                key_hash=hash_key(key),
                key_id=key_id,
                name=name,
                created_at=info.created_at,
                rate_limit=rate_limit,
            )
        )
    return key, info


def revoke_key(engine: Engine, key_id: str) -> bool:
    """Revoke by key_id; False when no active key has that id."""
    with engine.begin() as conn:
        done = conn.execute(
            update(api_keys)
            .where(api_keys.c.key_id == key_id, api_keys.c.revoked_at.is_(None))
            .values(revoked_at=int(time.time()))
        )
    return bool(done.rowcount)


def list_keys(engine: Engine) -> list[KeyInfo]:
    c = api_keys.c
    with engine.connect() as conn:
        rows = conn.execute(
            select(c.key_id, c.name, c.created_at, c.revoked_at, c.rate_limit).order_by(
                c.created_at, c.key_id
            )
        ).all()
    return [KeyInfo(r.key_id, r.name, int(r.created_at), r.revoked_at, r.rate_limit) for r in rows]


def lookup(conn: Connection, key: str) -> KeyInfo | None:
    """The active key with this value, or None (unknown or revoked)."""
    c = api_keys.c
    r = conn.execute(
        select(c.key_id, c.name, c.created_at, c.revoked_at, c.rate_limit).where(
            c.key_hash == hash_key(key)
        )
    ).first()
    if r is None or r.revoked_at is not None:
        return None
    return KeyInfo(r.key_id, r.name, int(r.created_at), None, r.rate_limit)


def ensure_secret(engine: Engine, name: str = PAGE_TOKEN_SECRET) -> None:
    """Create the named secret once (a concurrent creator wins; ours is then ignored)."""
    with engine.begin() as conn:
        conn.execute(
            dialect.insert_or_ignore(conn, api_secrets),
            {"name": name, "secret": secrets.token_hex(32), "created_at": int(time.time())},
        )


def read_secret(conn: Connection, name: str = PAGE_TOKEN_SECRET) -> bytes | None:
    found = conn.execute(
        select(api_secrets.c.secret).where(api_secrets.c.name == name)
    ).scalar_one_or_none()
    return None if found is None else bytes.fromhex(found)


def stored_secret(engine: Engine, name: str = PAGE_TOKEN_SECRET) -> bytes | None:
    """The shared secret, or None when the store has no api_secrets table or no such row
    (the app then falls back to a secret of its own process)."""
    try:
        with engine.connect() as conn:
            return read_secret(conn, name)
    except SQLAlchemyError:
        return None
