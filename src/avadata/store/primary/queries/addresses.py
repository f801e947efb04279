"""Reads over what addresses hold and did on the primary chains: their UTXOs alive at a time
(balances), the UTXOs exported to a chain for them (atomic memory), their newest activity,
and which chains they touched.

Stage: store. Every read starts from an address link table's key (address, chain, ...), so
its cost follows the addresses' own history, never the chain's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, and_, exists, func, literal_column, or_, select
from sqlalchemy.sql import ColumnElement

from avadata.store.schema import (
    primary_address_txs,
    primary_address_utxos,
    primary_txs,
    primary_utxos,
    primary_validations,
)

a, u, t, x = primary_address_utxos.c, primary_utxos.c, primary_txs.c, primary_address_txs.c


def unspent() -> ColumnElement[bool]:
    """`consuming_tx_hash IS NULL` in a form no index serves: SQLite would otherwise walk its
    consuming_tx_hash index over every unspent UTXO of the store instead of the few rows the
    query's other keys lead to (PostgreSQL plans by its statistics either way)."""
    # A literal: with a bound '' SQLite plans the comparison as `consuming_tx_hash = ?`.
    empty: ColumnElement[str] = literal_column("''")
    return func.coalesce(u.consuming_tx_hash, empty) == empty


def _alive(at: int | None) -> list[Any]:
    """Unspent now (`at` None), or created by `at` and not consumed by then."""
    if at is None:
        return [unspent()]
    return [
        u.block_timestamp <= at,
        or_(u.consuming_block_timestamp.is_(None), u.consuming_block_timestamp > at),
    ]


def owned_utxos(
    conn: Connection, chain: str, addresses: Sequence[str], at: int | None
) -> list[Any]:
    """The UTXOs of the chain's UTXO set owned by any of `addresses` at `at` (each once)."""
    stmt = (
        select(primary_utxos)
        .select_from(primary_address_utxos)
        .join(primary_utxos, u.utxo_id == a.utxo_id)
        .where(a.chain_id == chain, a.address.in_(sorted(set(addresses))), *_alive(at))
    )
    if at is not None:
        stmt = stmt.where(a.block_timestamp <= at)
    seen: dict[str, Any] = {}
    for r in conn.execute(stmt):
        seen.setdefault(str(r.utxo_id), r)
    return list(seen.values())


def exported_utxos(
    conn: Connection, addresses: Sequence[str], at: int | None
) -> list[tuple[Any, str]]:
    """(UTXO, its export's body) of the exported UTXOs the exports linked to `addresses` put
    in shared memory and no import took by `at`. An exported UTXO is in no chain's UTXO set,
    so it has no address-UTXO link; the caller keeps the owners and destinations it wants."""
    own_link = exists().where(
        a.address == x.address,
        a.chain_id == u.created_on,
        a.block_timestamp == u.block_timestamp,
        a.utxo_id == u.utxo_id,
    )
    stmt = (
        select(primary_utxos, t.body)
        .select_from(primary_address_txs)
        .join(primary_txs, and_(t.blockchain_id == x.blockchain_id, t.tx_hash == x.tx_hash))
        .join(primary_utxos, and_(u.created_on == t.blockchain_id, u.tx_hash == t.tx_hash))
        .where(
            x.address.in_(sorted(set(addresses))),
            t.tx_type == "ExportTx",
            ~own_link,
            *_alive(at),
        )
    )
    seen: dict[str, tuple[Any, str]] = {}
    for r in conn.execute(stmt):
        seen.setdefault(str(r.utxo_id), (r, str(r.body)))
    return list(seen.values())


def stake_states(conn: Connection, tx_hashes: Sequence[str]) -> dict[str, tuple[int, int | None]]:
    """tx hash -> (start, when its stake was returned or None) of these staking txs."""
    v = primary_validations.c
    hashes = sorted(set(tx_hashes))
    if not hashes:
        return {}
    stmt = select(v.tx_hash, v.start_ts, v.reward_timestamp).where(v.tx_hash.in_(hashes))
    return {
        str(r.tx_hash): (
            int(r.start_ts),
            None if r.reward_timestamp is None else int(r.reward_timestamp),
        )
        for r in conn.execute(stmt)
    }


def newest_links(conn: Connection, chain: str, addresses: Sequence[str]) -> list[Any]:
    """Each address's newest tx on the chain (one index seek per address)."""
    found = []
    for address in sorted(set(addresses)):
        row = conn.execute(
            select(x.address, x.block_timestamp, x.block_number, x.tx_index, x.tx_hash)
            .where(x.address == address, x.blockchain_id == chain)
            .order_by(x.block_timestamp.desc(), x.block_number.desc(), x.tx_index.desc())
            .limit(1)
        ).first()
        if row is not None:
            found.append(row)
    return found


def utxos_moved_by(conn: Connection, chain: str, tx_hash: str) -> Sequence[Any]:
    """The UTXOs a tx of the chain created (exports too) or consumed (imports too)."""
    return conn.execute(
        select(primary_utxos).where(
            or_(
                and_(u.created_on == chain, u.tx_hash == tx_hash),
                and_(u.consumed_on == chain, u.consuming_tx_hash == tx_hash),
            )
        )
    ).all()


def chains_touched(conn: Connection, address: str, chains: Sequence[str]) -> list[str]:
    """Which of `chains` hold a tx of the address (one index probe each)."""
    return [
        chain
        for chain in chains
        if conn.execute(
            select(x.tx_hash).where(x.address == address, x.blockchain_id == chain).limit(1)
        ).first()
        is not None
    ]
