"""Keyset queries over primary-network transactions and UTXOs.

Order key: (block_timestamp, block_number, tx_index) for txs and (block_timestamp, utxo_id)
for UTXOs; `after` is the last row served, compared as a row value in the page's direction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Row, Select, and_, literal, or_, select, tuple_
from sqlalchemy.sql import ColumnElement

from avadata.store.coltypes import U256
from avadata.store.schema import (
    primary_address_txs,
    primary_address_utxos,
    primary_assets,
    primary_l1_refunds,
    primary_l1_validation_txs,
    primary_l1_validator_live,
    primary_l1_validators,
    primary_txs,
    primary_utxos,
)

Position = tuple[int | str, ...]


def _after(cols: Sequence[ColumnElement[object]], after: Position | None, desc: bool) -> list:  # type: ignore[type-arg]
    if after is None:
        return []
    key = tuple_(*cols)
    return [key < tuple_(*after) if desc else key > tuple_(*after)]


def _distinct_if_several(links: Select[Any], addresses: Sequence[str]) -> Select[Any]:
    """One address's links are unique (their primary key): DISTINCT would only make SQLite
    materialise and sort every link of the address before the first row is served (0.5 s
    for an address of 100,000 UTXOs, against 1 ms walking the key in order)."""
    return links.distinct() if len(set(addresses)) > 1 else links


def list_txs(
    conn: Connection,
    chain: str,
    addresses: Sequence[str],
    after: Position | None,
    limit: int,
    *,
    desc: bool = True,
    tx_types: Sequence[str] = (),
    start: int | None = None,
    end: int | None = None,
    l1_validation: str | None = None,
) -> Sequence[Any]:
    t = primary_txs.c
    if l1_validation is not None:
        v = primary_l1_validation_txs.c
        keys = (
            select(v.block_timestamp, v.block_number, v.tx_index, v.tx_hash)
            .where(v.validation_id == l1_validation)
            .subquery()
        )
        cols = [keys.c.block_timestamp, keys.c.block_number, keys.c.tx_index]
        stmt = select(primary_txs).join(
            keys, and_(t.blockchain_id == chain, t.tx_hash == keys.c.tx_hash)
        )
    elif addresses:
        a = primary_address_txs.c
        links = select(a.block_timestamp, a.block_number, a.tx_index, a.tx_hash).where(
            a.blockchain_id == chain, a.address.in_(list(addresses))
        )
        keys = _distinct_if_several(links, addresses).subquery()
        cols = [keys.c.block_timestamp, keys.c.block_number, keys.c.tx_index]
        stmt = select(primary_txs).join(
            keys, and_(t.blockchain_id == chain, t.tx_hash == keys.c.tx_hash)
        )
    else:
        cols = [t.block_timestamp, t.block_number, t.tx_index]
        stmt = select(primary_txs).where(t.blockchain_id == chain)
    conds = _after(cols, after, desc)
    if tx_types:
        conds.append(t.tx_type.in_(list(tx_types)))
    if start is not None:
        conds.append(t.block_timestamp >= start)
    if end is not None:
        conds.append(t.block_timestamp <= end)
    order = [c.desc() if desc else c.asc() for c in cols]
    return conn.execute(stmt.where(*conds).order_by(*order).limit(limit)).all()


def utxos_of_txs(conn: Connection, tx_hashes: Sequence[str]) -> Sequence[Row[tuple[object, ...]]]:
    """UTXOs created or consumed by these txs (both lists of the tx shape)."""
    u = primary_utxos.c
    hashes = list(tx_hashes)
    return conn.execute(
        select(primary_utxos).where(or_(u.tx_hash.in_(hashes), u.consuming_tx_hash.in_(hashes)))
    ).all()


def list_utxos(
    conn: Connection,
    chain: str,
    addresses: Sequence[str],
    after: Position | None,
    limit: int,
    *,
    desc: bool = True,
    include_spent: bool = False,
    min_amount: int = 0,
    asset_id: str | None = None,
    by_amount: bool = False,
) -> Sequence[Any]:
    a = primary_address_utxos.c
    u = primary_utxos.c
    links = select(a.block_timestamp, a.utxo_id).where(
        a.chain_id == chain, a.address.in_(list(addresses))
    )
    keys = _distinct_if_several(links, addresses).subquery()
    if by_amount:
        # The amount bound through U256 so SQLite compares its zero-padded text form.
        cols = [u.amount, keys.c.utxo_id]
        conds = []
        if after is not None:
            key = tuple_(u.amount, keys.c.utxo_id)
            pos = tuple_(literal(int(after[0]), U256()), literal(str(after[1])))
            conds.append(key < pos if desc else key > pos)
    else:
        cols = [keys.c.block_timestamp, keys.c.utxo_id]
        conds = _after(cols, after, desc)
    if not include_spent:
        conds.append(u.consuming_tx_hash.is_(None))
    if min_amount:
        conds.append(u.amount >= min_amount)
    if asset_id is not None:
        conds.append(u.asset_id == asset_id)
    order = [c.desc() if desc else c.asc() for c in cols]
    stmt = select(primary_utxos).join(keys, u.utxo_id == keys.c.utxo_id)
    return conn.execute(stmt.where(*conds).order_by(*order).limit(limit)).all()


def assets(conn: Connection, asset_ids: Sequence[str]) -> Sequence[Row[tuple[object, ...]]]:
    """The indexed X-chain assets among these IDs (CreateAssetTx facts)."""
    ids = sorted(set(asset_ids))
    if not ids:
        return []
    return conn.execute(select(primary_assets).where(primary_assets.c.asset_id.in_(ids))).all()


L1_DEFINING = ("ConvertSubnetToL1Tx", "RegisterL1ValidatorTx", "SetL1ValidatorWeightTx")


def l1_validators(conn: Connection, validation_ids: Sequence[str]) -> Sequence[Any]:
    """Node, subnet and the node's last answered balance (NULL before any) of these L1
    validations."""
    ids = sorted(set(validation_ids))
    if not ids:
        return []
    v, live = primary_l1_validators.c, primary_l1_validator_live.c
    return conn.execute(
        select(v.validation_id, v.node_id, v.subnet_id, live.balance)
        .outerjoin(primary_l1_validator_live, live.validation_id == v.validation_id)
        .where(v.validation_id.in_(ids))
    ).all()


def l1_defining_txs(conn: Connection, validation_ids: Sequence[str]) -> Sequence[Any]:
    """The txs that set these validations' weight (creation, weight changes), oldest first,
    with their bodies: what an increase or a disable leaves the weight at."""
    ids = sorted(set(validation_ids))
    if not ids:
        return []
    x, t = primary_l1_validation_txs.c, primary_txs.c
    return conn.execute(
        select(x.validation_id, x.block_timestamp, x.block_number, x.tx_index, t.body)
        .join(primary_txs, and_(t.blockchain_id == "P", t.tx_hash == x.tx_hash))
        .where(x.validation_id.in_(ids), t.tx_type.in_(L1_DEFINING))
        .order_by(x.validation_id, x.block_timestamp, x.block_number, x.tx_index)
    ).all()


def l1_refunds(conn: Connection, tx_hashes: Sequence[str]) -> dict[str, tuple[str, str]]:
    """tx hash -> (refund UTXO ID, validation ID) of the disables and removals among these
    txs (whether or not the refund's row is known)."""
    hashes = sorted(set(tx_hashes))
    if not hashes:
        return {}
    f = primary_l1_refunds.c
    found = conn.execute(
        select(f.tx_hash, f.utxo_id, f.validation_id).where(f.tx_hash.in_(hashes))
    ).all()
    return {str(r.tx_hash): (str(r.utxo_id), str(r.validation_id)) for r in found}
