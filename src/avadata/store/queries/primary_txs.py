"""Keyset queries over primary-network transactions and UTXOs.

Order key: (block_timestamp, block_number, tx_index) for txs and (block_timestamp, utxo_id)
for UTXOs; `after` is the last row served, compared as a row value in the page's direction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
from sqlalchemy import Connection, Row, Select, Subquery, and_, literal, or_, select, tuple_, union
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


def _tops_of(
    branches: Sequence[Select[Any]], key: Sequence[ColumnElement[Any]], desc: bool, limit: int
) -> Subquery:
    """The rows a page over these addresses' links may hold, one branch per address. One
    address: its branch as it is, which SQLite flattens into the page's query and walks in
    key order. Several: the union of each one's first `limit` in the page's order and
    filters, at most addresses x limit rows whatever the history. (A DISTINCT over every
    link made SQLite materialise and sort all of them first: 0.5 s for an address of
    100,000 UTXOs.)"""
    if len(branches) == 1:
        return branches[0].subquery()
    tops = [b.order_by(*_ordered(key, desc)).limit(limit).subquery() for b in branches]
    return union(*(select(*top.c) for top in tops)).subquery()


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
        link_key = [a.block_timestamp, a.block_number, a.tx_index]
        branches = []
        for address in sorted(set(addresses)):
            b = select(*link_key, a.tx_hash).where(a.blockchain_id == chain, a.address == address)
            if tx_types:
                b = b.join(
                    primary_txs, and_(t.blockchain_id == chain, t.tx_hash == a.tx_hash)
                ).where(t.tx_type.in_(list(tx_types)))
            if start is not None:
                b = b.where(a.block_timestamp >= start)
            if end is not None:
                b = b.where(a.block_timestamp <= end)
            branches.append(b.where(*_after(link_key, after, desc)))
        keys = _tops_of(branches, link_key, desc, limit)
        cols = [keys.c.block_timestamp, keys.c.block_number, keys.c.tx_index]
        stmt = select(primary_txs).join(
            keys, and_(t.blockchain_id == chain, t.tx_hash == keys.c.tx_hash)
        )
        return conn.execute(stmt.order_by(*_ordered(cols, desc)).limit(limit)).all()
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
    return conn.execute(stmt.where(*conds).order_by(*_ordered(cols, desc)).limit(limit)).all()


def _ordered(cols: Sequence[ColumnElement[Any]], desc: bool) -> list[ColumnElement[Any]]:
    return [c.desc() if desc else c.asc() for c in cols]


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
    conds: list[ColumnElement[bool]] = []
    if by_amount:
        key: list[ColumnElement[Any]] = [u.amount, a.utxo_id]
        if after is not None:
            # The amount bound through U256 so SQLite compares its zero-padded text form.
            pos = tuple_(literal(int(after[0]), U256()), literal(str(after[1])))
            conds.append(tuple_(*key) < pos if desc else tuple_(*key) > pos)
    else:
        key = [a.block_timestamp, a.utxo_id]
        conds += _after(key, after, desc)
    if not include_spent:
        conds.append(u.consuming_tx_hash.is_(None))
    if min_amount:
        conds.append(u.amount >= min_amount)
    if asset_id is not None:
        conds.append(u.asset_id == asset_id)
    branches = [
        select(*key)
        .select_from(primary_address_utxos)
        .join(primary_utxos, u.utxo_id == a.utxo_id)
        .where(a.chain_id == chain, a.address == address, *conds)
        for address in sorted(set(addresses))
    ]
    keys = _tops_of(branches, key, desc, limit)
    stmt = select(primary_utxos).join(keys, u.utxo_id == keys.c.utxo_id)
    return conn.execute(stmt.order_by(*_ordered(list(keys.c), desc)).limit(limit)).all()


def spend_credentials(
    conn: Connection, spenders: Sequence[tuple[str, str]]
) -> dict[str, dict[str, Any]]:
    """tx hash -> {UTXO ID: credentials} of these (blockchain, tx hash) consuming txs: what
    the indexer kept from each one's credentials (decode/primary_rows.spend_credentials)."""
    wanted = sorted(set(spenders))
    if not wanted:
        return {}
    t = primary_txs.c
    by_chain: dict[str, list[str]] = {}
    for chain, tx_hash in wanted:
        by_chain.setdefault(chain, []).append(tx_hash)
    # One IN per chain: SQLite answers a row-value IN by scanning the table.
    found = conn.execute(
        select(t.tx_hash, t.body).where(
            or_(*(and_(t.blockchain_id == k, t.tx_hash.in_(v)) for k, v in by_chain.items()))
        )
    ).all()
    return {str(r.tx_hash): orjson.loads(r.body).get("_spendCredentials", {}) for r in found}


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
