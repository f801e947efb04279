"""Keyset queries over primary-network transactions and UTXOs.

Order key: (block_timestamp, block_number, tx_index) for txs and (block_timestamp, utxo_id)
for UTXOs; `after` is the last row served, compared as a row value in the page's direction.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, NamedTuple

import orjson
from sqlalchemy import (
    Connection,
    Row,
    Select,
    Subquery,
    and_,
    bindparam,
    or_,
    select,
    tuple_,
    union,
)
from sqlalchemy.sql import ColumnElement

from avadata.store.coltypes import U256
from avadata.store.primary.queries.validators import staked_condition
from avadata.store.schema import (
    primary_address_txs,
    primary_address_utxos,
    primary_asset_txs,
    primary_assets,
    primary_l1_refunds,
    primary_l1_validation_txs,
    primary_l1_validator_live,
    primary_l1_validators,
    primary_txs,
    primary_utxos,
    primary_validations,
)

Position = tuple[int | str, ...]


class Window(NamedTuple):
    """The page a list asks for: one chain's rows of these addresses (none: every row), after
    `after` in the page's direction, at most `limit` of them."""

    chain: str
    addresses: Sequence[str]
    after: Position | None
    limit: int
    desc: bool = True


def after_key(
    cols: Sequence[ColumnElement[Any]],
    after: Position | Sequence[ColumnElement[Any]] | None,
    desc: bool,
) -> list[ColumnElement[bool]]:
    if after is None:
        return []
    key = tuple_(*cols)
    return [key < tuple_(*after) if desc else key > tuple_(*after)]


def tops_of(
    branches: Sequence[Select[Any]],
    key: Sequence[ColumnElement[Any]],
    desc: bool,
    limit: ColumnElement[Any],
) -> Subquery:
    """The rows a page over these addresses' links may hold, one branch per address. One
    address: its branch as it is, which SQLite flattens into the page's query and walks in
    key order. Several: the union of each one's first `limit` in the page's order and
    filters, at most addresses x limit rows whatever the history. (A DISTINCT over every
    link made SQLite materialise and sort all of them first: 0.5 s for an address of
    100,000 UTXOs.)"""
    if len(branches) == 1:
        return branches[0].subquery()
    tops = [b.order_by(*ordered(key, desc)).limit(limit).subquery() for b in branches]
    return union(*(select(*top.c) for top in tops)).subquery()


def list_txs(
    conn: Connection,
    window: Window,
    *,
    tx_types: Sequence[str] = (),
    start: int | None = None,
    end: int | None = None,
    l1_validation: str | None = None,
    staked_at: int | None = None,
) -> Sequence[Any]:
    """A page of txs; `staked_at` keeps the staking txs whose stake is still locked at that
    time (transactions:listStaking; with addresses only)."""
    chain, addresses, after, limit, desc = window
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
        stmt = _address_txs_statement(
            len(set(addresses)),
            desc,
            after is not None,
            bool(tx_types),
            start is not None,
            end is not None,
            staked_at is not None,
        )
        params: dict[str, Any] = {"chain": chain, "limit": limit, "types": list(tx_types)}
        params.update({f"a{i}": x for i, x in enumerate(sorted(set(addresses)))})
        params.update({"start": start, "end": end, "now": staked_at})
        if after is not None:
            params.update({f"p{i}": x for i, x in enumerate(after)})
        return conn.execute(stmt, params).all()
    else:
        cols = [t.block_timestamp, t.block_number, t.tx_index]
        stmt = select(primary_txs).where(t.blockchain_id == chain)
    conds = after_key(cols, after, desc)
    if tx_types:
        conds.append(t.tx_type.in_(list(tx_types)))
    if start is not None:
        conds.append(t.block_timestamp >= start)
    if end is not None:
        conds.append(t.block_timestamp <= end)
    return conn.execute(stmt.where(*conds).order_by(*ordered(cols, desc)).limit(limit)).all()


@functools.lru_cache(maxsize=64)
def _address_txs_statement(
    n: int, desc: bool, paged: bool, typed: bool, from_start: bool, to_end: bool, staked: bool
) -> Select[Any]:
    """The page of txs of n addresses, built once per shape: every value is a bound
    parameter (chain, a0..an-1, p0..p2 the position after, types, start, end, now, limit)."""
    t, a = primary_txs.c, primary_address_txs.c
    link_key = [a.block_timestamp, a.block_number, a.tx_index]
    after: tuple[ColumnElement[Any], ...] | None = None
    if paged:
        after = tuple(bindparam(f"p{i}") for i in range(3))
    branches = []
    for i in range(n):
        b = select(*link_key, a.tx_hash).where(
            a.blockchain_id == bindparam("chain"), a.address == bindparam(f"a{i}")
        )
        if typed:
            b = b.join(
                primary_txs, and_(t.blockchain_id == a.blockchain_id, t.tx_hash == a.tx_hash)
            )
            b = b.where(t.tx_type.in_(bindparam("types", expanding=True)))
        if from_start:
            b = b.where(a.block_timestamp >= bindparam("start"))
        if to_end:
            b = b.where(a.block_timestamp <= bindparam("end"))
        if staked:
            b = b.join(primary_validations, primary_validations.c.tx_hash == a.tx_hash)
            b = b.where(staked_condition(bindparam("now")))
        branches.append(b.where(*after_key(link_key, after, desc)))
    keys = tops_of(branches, link_key, desc, bindparam("limit"))
    cols = [keys.c.block_timestamp, keys.c.block_number, keys.c.tx_index]
    stmt = select(primary_txs).join(
        keys, and_(t.blockchain_id == bindparam("chain"), t.tx_hash == keys.c.tx_hash)
    )
    return stmt.order_by(*ordered(cols, desc)).limit(bindparam("limit"))


def list_asset_txs(
    conn: Connection,
    window: Window,
    asset_id: str,
    *,
    tx_types: Sequence[str] = (),
    start: int | None = None,
    end: int | None = None,
) -> Sequence[Any]:
    """A page of the txs that create, emit or consume an asset (X-chain links)."""
    chain, _, after, limit, desc = window
    k, t = primary_asset_txs.c, primary_txs.c
    key = [k.block_timestamp, k.block_number, k.tx_index]
    conds = [k.asset_id == asset_id, k.blockchain_id == chain, *after_key(key, after, desc)]
    if tx_types:
        conds.append(t.tx_type.in_(list(tx_types)))
    if start is not None:
        conds.append(k.block_timestamp >= start)
    if end is not None:
        conds.append(k.block_timestamp <= end)
    stmt = (
        select(primary_txs)
        .select_from(primary_asset_txs)
        .join(primary_txs, and_(t.blockchain_id == k.blockchain_id, t.tx_hash == k.tx_hash))
        .where(*conds)
    )
    return conn.execute(stmt.order_by(*ordered(key, desc)).limit(limit)).all()


def asset(conn: Connection, asset_id: str) -> Any:
    """The indexed CreateAssetTx facts of one asset, or None."""
    a = primary_assets.c
    return conn.execute(select(primary_assets).where(a.asset_id == asset_id)).first()


def tx_by_hash(conn: Connection, chain: str, tx_hash: str) -> Sequence[Any]:
    """The tx of this hash on this chain (its primary key): one row, or none."""
    t = primary_txs.c
    return conn.execute(
        select(primary_txs).where(t.blockchain_id == chain, t.tx_hash == tx_hash)
    ).all()


def ordered(cols: Sequence[ColumnElement[Any]], desc: bool) -> list[ColumnElement[Any]]:
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
    window: Window,
    *,
    include_spent: bool = False,
    min_amount: int = 0,
    asset_id: str | None = None,
    by_amount: bool = False,
) -> Sequence[Any]:
    chain, addresses, after, limit, desc = window
    stmt = _address_utxos_statement(
        len(set(addresses)),
        desc,
        after is not None,
        by_amount,
        include_spent,
        bool(min_amount),
        asset_id is not None,
    )
    params: dict[str, Any] = {"chain": chain, "limit": limit, "min": min_amount, "asset": asset_id}
    params.update({f"a{i}": x for i, x in enumerate(sorted(set(addresses)))})
    if after is not None:
        params.update({"p0": int(after[0]) if by_amount else after[0], "p1": str(after[1])})
    return conn.execute(stmt, params).all()


@functools.lru_cache(maxsize=64)
def _address_utxos_statement(
    n: int,
    desc: bool,
    paged: bool,
    by_amount: bool,
    include_spent: bool,
    at_least: bool,
    one_asset: bool,
) -> Select[Any]:
    """The page of UTXOs of n addresses, built once per shape: every value is a bound
    parameter (chain, a0..an-1, p0 and p1 the position after, min, asset, limit)."""
    a, u = primary_address_utxos.c, primary_utxos.c
    conds: list[ColumnElement[bool]] = []
    after: tuple[ColumnElement[Any], ...]
    if by_amount:
        key: list[ColumnElement[Any]] = [u.amount, a.utxo_id]
        # The amount bound through U256, so SQLite compares it as the column stores it.
        after = (bindparam("p0", type_=U256()), bindparam("p1"))
    else:
        key = [a.block_timestamp, a.utxo_id]
        after = (bindparam("p0"), bindparam("p1"))
    conds += after_key(key, after if paged else None, desc)
    if not include_spent:
        conds.append(u.consuming_tx_hash.is_(None))
    if at_least:
        conds.append(u.amount >= bindparam("min", type_=U256()))
    if one_asset:
        conds.append(u.asset_id == bindparam("asset"))
    branches = [
        select(*key)
        .select_from(primary_address_utxos)
        .join(primary_utxos, u.utxo_id == a.utxo_id)
        .where(a.chain_id == bindparam("chain"), a.address == bindparam(f"a{i}"), *conds)
        for i in range(n)
    ]
    keys = tops_of(branches, key, desc, bindparam("limit"))
    stmt = select(primary_utxos).join(keys, u.utxo_id == keys.c.utxo_id)
    return stmt.order_by(*ordered(list(keys.c), desc)).limit(bindparam("limit"))


def spend_credentials(
    conn: Connection, spenders: Sequence[tuple[str, str]]
) -> dict[str, dict[str, Any]]:
    """tx hash -> {UTXO ID: credentials} of these (blockchain, tx hash) consuming txs: what
    the indexer kept from each one's credentials (decode/primary/credentials.spend_credentials)."""
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
