"""The aggregate scopes' upkeep: which scopes a chain's distinct counts go to, and their rows.

Stage: store (the metrics rollup's writing half reads `chains` and writes metric_* tables; the
series reads ask which aggregates are built). Scope keys: metrics/scopes.py.

Invariant: an aggregate key listed in `metric_scopes` holds the union of its chains' rows. A
key is materialised (copied from its chains' scopes, in the writer's transaction) the first
time a writer needs it, i.e. after a chain joined or changed network; keys no longer current
are dropped then too. Readers fall back to a union query for a key not materialised yet.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection, delete, select

from avadata.metrics import scopes
from avadata.metrics.scopes import key_of
from avadata.store import dialect
from avadata.store.schema import (
    chains,
    metric_counts,
    metric_first_seen,
    metric_members,
    metric_scopes,
)

Builder = Callable[[Connection, str, tuple[int, ...]], None]


def aggregate_sets(conn: Connection) -> dict[str, tuple[int, ...]]:
    """{total/mainnet/testnet: chain IDs}, from the chains table."""
    c = chains.c
    rows = conn.execute(select(c.chain_id, c.network, c.network_id))
    return scopes.aggregate_sets(
        (int(i), n, None if net is None else int(net)) for i, n, net in rows
    )


def is_materialized(conn: Connection, key: str) -> bool:
    s = metric_scopes.c
    return conn.execute(select(s.scope).where(s.scope == key)).first() is not None


def scopes_for(conn: Connection, chain_id: int, build: Builder) -> list[str]:
    """The scope keys `chain_id` writes to, narrowest first; new aggregate keys are claimed
    and filled by `build(conn, key, chain_ids)` (membership.materialize), stale ones dropped."""
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
