"""Write primary-network rows and move the chain's cursor in the same transaction.

Inserts are insert-or-ignore on natural keys and spends only fill empty consumption columns,
so replaying a range after a crash changes nothing. An import can come before the export that
created its UTXO (chains are indexed in turn): its spend waits in `primary_pending_spends`
and is applied in the transaction that inserts the UTXO, so the final rows do not depend on
the order the chains were indexed in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import orjson
from sqlalchemy import (
    BindParameter,
    Connection,
    Engine,
    Select,
    bindparam,
    delete,
    select,
    true,
    update,
)

from avadata.records.primary import Block, SpentRefund, Utxo
from avadata.store import dialect
from avadata.store.metrics import rows_written
from avadata.store.primary import kept
from avadata.store.primary.prepare import (
    BlockRows,
    address_tx_rows,
    address_utxo_rows,
    block_rows,
    owner_of,
    utxo_row,
)
from avadata.store.schema import (
    primary_address_txs,
    primary_address_utxos,
    primary_asset_txs,
    primary_assets,
    primary_blocks,
    primary_cursors,
    primary_l1_refunds,
    primary_l1_validation_txs,
    primary_l1_validators,
    primary_pending_spends,
    primary_tx_burns,
    primary_txs,
    primary_utxos,
    primary_validations,
)


def get_primary_cursor(engine: Engine | Connection, blockchain_id: str) -> int | None:
    """Index of the last container whose rows are committed, or None."""
    stmt = select(primary_cursors.c.container_index).where(
        primary_cursors.c.blockchain_id == blockchain_id
    )
    if isinstance(engine, Connection):
        value = engine.execute(stmt).scalar()
    else:
        with engine.connect() as conn:
            value = conn.execute(stmt).scalar()
    return None if value is None else int(value)


# Rebuilds an L1 refund UTXO from what spent it (decode/primary/utxos.rebuilt_refund): passed
# in, as making the UTXO's bytes is the codec's business, not the store's.
RebuildRefund = Callable[[SpentRefund], Utxo]

# An extra writer run in the write transaction after the batch's rows, before the cursor moves
# (the P-chain's metric rollup: store/metrics/pchain_writer.apply_pchain).
PrimaryApplier = Callable[[Connection, str, Sequence[Block]], None]


def write_blocks(
    engine: Engine,
    blockchain_id: str,
    blocks: Sequence[Block],
    last_index: int,
    last_id: str,
    cursor: str | None = None,
    *,
    rebuild_refund: RebuildRefund,
    appliers: Sequence[PrimaryApplier] = (),
) -> None:
    """`cursor` names the index the containers came from when it is not the chain's only one
    (the X-chain's vertex index next to its block index)."""
    rows = [block_rows(blockchain_id, b) for b in blocks]
    written: dict[str, int] = {}
    with engine.begin() as conn:
        for table, key in (
            (primary_txs, "txs"),
            (primary_utxos, "utxos"),
            (primary_address_txs, "address_txs"),
            (primary_address_utxos, "address_utxos"),
            (primary_asset_txs, "asset_txs"),
            (primary_blocks, "blocks"),
            (primary_assets, "assets"),
            (primary_l1_validators, "l1_validators"),
            (primary_l1_validation_txs, "l1_txs"),
            (primary_l1_refunds, "l1_refunds"),
        ):
            values = [v for r in rows for v in getattr(r, key)]
            written[table.name] = len(values)
            if values:
                conn.execute(dialect.insert_or_ignore(conn, table), values)
        _write_stakers(conn, rows)
        written["primary_validations"] = sum(len(r.opened) for r in rows)
        # after the periods: a reward UTXO is keyed by its period's owners
        written[primary_tx_burns.name] = kept.write(conn, rows)
        rows_written.count(conn, cursor or blockchain_id, written)
        applied = _apply_pending(conn, [i for r in rows for i in r.exported_ids])
        spends = [s for r in rows for s in r.spends]
        _park_imports(conn, [s for s in spends if s.get("imported")])
        own = [s for s in spends if not s.get("imported")]
        _restore_spent_refunds(conn, blockchain_id, own, rebuild_refund)
        # Spends in order after all inserts: a UTXO created and spent in one batch is found.
        _spend(conn, spends)
        _link_spenders(conn, [*(str(s["utxo_id"]) for s in spends), *applied])
        for applier in appliers:
            applier(conn, blockchain_id, blocks)
        stmt = dialect.upsert(
            conn,
            primary_cursors,
            keys=("blockchain_id",),
            set_=lambda ex: {
                "container_index": ex.container_index,
                "container_id": ex.container_id,
            },
            where=lambda ex: ex.container_index > primary_cursors.c.container_index,
        )
        conn.execute(
            stmt,
            {
                "blockchain_id": cursor or blockchain_id,
                "container_index": last_index,
                "container_id": last_id,
            },
        )


_SPEND_VALUES: dict[str, BindParameter[Any]] = {
    "consumed_on": bindparam("b_consumed_on"),
    "consuming_tx_hash": bindparam("b_tx"),
    "consuming_block_number": bindparam("b_block"),
    "consuming_block_timestamp": bindparam("b_ts"),
}


def _spend(conn: Connection, spends: Sequence[Any]) -> None:
    """Record who consumed each UTXO; a consumption once recorded is never overwritten."""
    if not spends:
        return
    conn.execute(
        update(primary_utxos)
        .where(
            primary_utxos.c.utxo_id == bindparam("b_utxo_id"),
            primary_utxos.c.consuming_tx_hash.is_(None),
        )
        .values(_SPEND_VALUES),
        [
            {
                "b_utxo_id": s["utxo_id"],
                "b_consumed_on": s["consumed_on"],
                "b_tx": s["consuming_tx_hash"],
                "b_block": s["consuming_block_number"],
                "b_ts": s["consuming_block_timestamp"],
            }
            for s in spends
        ],
    )


def _chunks(items: Sequence[str], size: int = 500) -> list[Sequence[str]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def _apply_pending(conn: Connection, exported_ids: Sequence[str]) -> list[str]:
    """Spends that waited for these exported UTXOs (their import was indexed first); returns
    the UTXOs they consumed."""
    p = primary_pending_spends.c
    applied: list[str] = []
    if not exported_ids or conn.execute(select(p.utxo_id).limit(1)).first() is None:
        return applied
    for part in _chunks(exported_ids):
        waiting = conn.execute(
            select(primary_pending_spends).where(p.utxo_id.in_(list(part)))
        ).all()
        if not waiting:
            continue
        _spend(conn, [w._mapping for w in waiting])
        conn.execute(
            delete(primary_pending_spends).where(p.utxo_id.in_([w.utxo_id for w in waiting]))
        )
        applied += [str(w.utxo_id) for w in waiting]
    return applied


def _link_spenders(conn: Connection, utxo_ids: Sequence[str]) -> None:
    """A tx belongs to the owners of what it spends, not only to those of what it creates.
    Inputs carry no addresses, so the owners come from the consumed UTXO's row: this also
    covers exported UTXOs (they have no `primary_address_utxos` rows, being in no chain's
    UTXO set) and imports indexed before their export (linked here once the pending spend is
    applied; the import's position comes from its stored tx row)."""
    u, t = primary_utxos.c, primary_txs.c
    links: list[dict[str, object]] = []
    for part in _chunks(list(dict.fromkeys(utxo_ids))):
        found = conn.execute(
            select(
                u.addresses,
                t.blockchain_id,
                t.block_timestamp,
                t.block_number,
                t.tx_index,
                t.tx_hash,
            )
            .join(
                primary_txs,
                (t.blockchain_id == u.consumed_on) & (t.tx_hash == u.consuming_tx_hash),
            )
            .where(u.utxo_id.in_(list(part)))
        ).all()
        links += [
            {
                "address": address,
                "blockchain_id": r.blockchain_id,
                "block_timestamp": r.block_timestamp,
                "block_number": r.block_number,
                "tx_index": r.tx_index,
                "tx_hash": r.tx_hash,
            }
            for r in found
            for address in orjson.loads(r.addresses)
        ]
    if links:
        conn.execute(dialect.insert_or_ignore(conn, primary_address_txs), links)


def _restore_spent_refunds(
    conn: Connection,
    blockchain_id: str,
    spends: Sequence[dict[str, Any]],
    rebuild: RebuildRefund,
) -> None:
    """Rows of L1 refund UTXOs the node no longer had when their refund tx was indexed (spent
    by then): the spending input carries the amount and asset, the validation's
    remainingBalanceOwner the owner, so the row is the one the node would have served. Runs
    after the batch's inserts (refund and spend may share a batch) and before its spends."""
    if blockchain_id != "P" or not spends:
        return
    if conn.execute(select(primary_l1_refunds.c.utxo_id).limit(1)).first() is None:
        return
    by_id = {str(s["utxo_id"]): s for s in spends if s.get("amount") is not None}
    for part in _chunks(list(by_id)):
        for r in conn.execute(_lost_refunds(blockchain_id, part)).all():
            spend = by_id[r.utxo_id]
            ts, height = int(r.block_timestamp), int(r.block_number)
            utxo = rebuild(
                SpentRefund(
                    str(r.tx_hash),
                    int(r.output_index),
                    str(spend["asset_id"]),
                    int(spend["amount"]),
                    owner_of(r.remaining_balance_owner),
                    height,
                    ts,
                )
            )
            conn.execute(
                dialect.insert_or_ignore(conn, primary_utxos),
                [utxo_row(blockchain_id, utxo, height, ts)],
            )
            conn.execute(
                dialect.insert_or_ignore(conn, primary_address_utxos),
                address_utxo_rows(blockchain_id, utxo, ts),
            )
            conn.execute(
                dialect.insert_or_ignore(conn, primary_address_txs),
                address_tx_rows(
                    blockchain_id, utxo.addresses, height, ts, int(r.tx_index), str(r.tx_hash)
                ),
            )


def _lost_refunds(blockchain_id: str, utxo_ids: Sequence[str]) -> Select[Any]:
    """The refunds among these UTXOs with no row yet whose owner is known."""
    f, t, v, u = primary_l1_refunds.c, primary_txs.c, primary_l1_validators.c, primary_utxos.c
    return (
        select(
            f.utxo_id,
            f.output_index,
            v.remaining_balance_owner,
            t.tx_hash,
            t.block_number,
            t.block_timestamp,
            t.tx_index,
        )
        .join(primary_txs, (t.blockchain_id == blockchain_id) & (t.tx_hash == f.tx_hash))
        .join(primary_l1_validators, v.validation_id == f.validation_id)
        .outerjoin(primary_utxos, u.utxo_id == f.utxo_id)
        .where(
            f.utxo_id.in_(list(utxo_ids)),
            u.utxo_id.is_(None),
            v.remaining_balance_owner.is_not(None),
        )
    )


def _park_imports(conn: Connection, imports: Sequence[dict[str, object]]) -> None:
    """Imported UTXOs with no row yet: their export is on a chain not indexed that far."""
    if not imports:
        return
    ids = [str(s["utxo_id"]) for s in imports]
    have: set[str] = set()
    for part in _chunks(ids):
        have.update(
            conn.execute(
                select(primary_utxos.c.utxo_id).where(primary_utxos.c.utxo_id.in_(list(part)))
            ).scalars()
        )
    waiting = [
        {
            k: s[k]
            for k in (
                "utxo_id",
                "consumed_on",
                "consuming_tx_hash",
                "consuming_block_number",
                "consuming_block_timestamp",
            )
        }
        for s in imports
        if s["utxo_id"] not in have
    ]
    if waiting:
        conn.execute(dialect.insert_or_ignore(conn, primary_pending_spends), waiting)


def _write_stakers(conn: Connection, rows: Sequence[BlockRows]) -> None:
    """Open validation periods, then close the ones a reward or removal ends (in that order:
    a period opened and closed in one batch is found). Replays set the same values."""
    opened = [o for r in rows for o in r.opened]
    if opened:
        conn.execute(dialect.insert_or_ignore(conn, primary_validations), opened)
    v = primary_validations.c
    rewarded = [x for r in rows for x in r.rewarded]
    if rewarded:
        conn.execute(
            update(primary_validations)
            .where(v.tx_hash == bindparam("b_tx_hash"))
            .values(
                reward_tx_hash=bindparam("reward_tx_hash"),
                reward_timestamp=bindparam("reward_timestamp"),
                validation_reward=bindparam("validation_reward"),
                delegation_reward=bindparam("delegation_reward"),
                reward_committed=bindparam("reward_committed"),
            ),
            rewarded,
        )
    removed = [x for r in rows for x in r.removed]
    for x in removed:
        conn.execute(
            update(primary_validations)
            .where(
                v.node_id == x["b_node_id"] if x["b_node_id"] is not None else true(),
                v.subnet_id == x["b_subnet_id"],
                v.kind == "subnet_validator",
                v.start_ts <= x["remove_timestamp"],
                (v.remove_tx_hash.is_(None)) | (v.remove_tx_hash == x["remove_tx_hash"]),
                v.end_ts > x["remove_timestamp"],
            )
            .values(remove_tx_hash=x["remove_tx_hash"], remove_timestamp=x["remove_timestamp"])
        )
