"""Which membership scopes a chain's distinct counts go to, and the aggregate scopes' upkeep.

Stage: metrics (reads `chains`, writes metric_* tables).

A scope is the set of chains a distinct count runs over. A single chain's scope key is its
chain ID in decimal. An aggregate (`total`, `mainnet`, `testnet`) with two or more chains gets
a key derived from its set of chain IDs ("agg:" + a digest), so aggregates with the same chains
(total == testnet on a one-network devnet) share their rows, and an aggregate of one chain
simply reads that chain's rows: a single-chain store writes every membership row once.

Invariant: an aggregate key listed in `metric_scopes` holds the union of its chains' rows. A
key is materialised (copied from its chains' scopes, in the writer's transaction) the first
time a writer needs it, i.e. after a chain joined or changed network; keys no longer current
are dropped then too. Readers fall back to a union query for a key not materialised yet.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from typing import Literal

from sqlalchemy import Connection, delete, select

from avadata.store import dialect
from avadata.store.schema import (
    chains,
    metric_counts,
    metric_first_seen,
    metric_members,
    metric_scopes,
)

TOTAL = "total"
Builder = Callable[[Connection, str, tuple[int, ...]], None]
AGGREGATES = (TOTAL, "mainnet", "testnet")


def network_of(stored: str | None) -> Literal["mainnet", "testnet"]:
    """The metrics network of a chain: its stored network, else testnet (a devnet)."""
    return "mainnet" if stored == "mainnet" else "testnet"


def key_of(chain_ids: Iterable[int]) -> str:
    """The scope key of a set of chains ("" for none)."""
    ids = sorted(set(chain_ids))
    if len(ids) <= 1:
        return str(ids[0]) if ids else ""
    digest = hashlib.sha256(",".join(map(str, ids)).encode()).hexdigest()[:20]
    return f"agg:{digest}"


def aggregate_sets(conn: Connection) -> dict[str, tuple[int, ...]]:
    """{total/mainnet/testnet: chain IDs}, from the chains table."""
    rows = conn.execute(select(chains.c.chain_id, chains.c.network)).all()
    out: dict[str, tuple[int, ...]] = {}
    for name in AGGREGATES:
        out[name] = tuple(sorted(int(c) for c, n in rows if name == TOTAL or network_of(n) == name))
    return out


def is_materialized(conn: Connection, key: str) -> bool:
    s = metric_scopes.c
    return conn.execute(select(s.scope).where(s.scope == key)).first() is not None


def scopes_for(conn: Connection, chain_id: int, build: Builder) -> list[str]:
    """The scope keys `chain_id` writes to, narrowest first; new aggregate keys are claimed
    and filled by `build(conn, key, chain_ids)` (applier.materialize), stale ones dropped."""
    sets = aggregate_sets(conn)
    current = {key_of(ids): ids for ids in sets.values() if len(ids) >= 2}
    s = metric_scopes.c
    stored = {r[0] for r in conn.execute(select(s.scope))}
    if stored != set(current):
        _drop(conn, sorted(stored - set(current)))
        for key in sorted(set(current) - stored):
            if _claim(conn, key, current[key]):
                build(conn, key, current[key])
    out = [str(chain_id)]
    # Narrowest first (chain, its network, total): the applier cascades only rows that were
    # new in a scope to the next one, which is right only when each scope contains the last.
    for ids in sorted(sets.values(), key=len):
        key = key_of(ids)
        if chain_id in ids and len(ids) >= 2 and key not in out:
            out.append(key)
    return out


def _drop(conn: Connection, keys: list[str]) -> None:
    if not keys:
        return
    conn.execute(delete(metric_members).where(metric_members.c.scope.in_(keys)))
    conn.execute(delete(metric_counts).where(metric_counts.c.scope.in_(keys)))
    conn.execute(delete(metric_first_seen).where(metric_first_seen.c.scope.in_(keys)))
    conn.execute(delete(metric_scopes).where(metric_scopes.c.scope.in_(keys)))


def _claim(conn: Connection, key: str, chain_ids: tuple[int, ...]) -> bool:
    """Claim `key` for building; a concurrent writer waits on the claim row, then skips."""
    claimed = conn.execute(
        dialect.insert_or_ignore(conn, metric_scopes)
        .values(scope=key, chain_ids=",".join(map(str, chain_ids)))
        .returning(metric_scopes.c.scope)
    ).first()
    return claimed is not None
