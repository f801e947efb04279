"""What the primary writer keeps beside the rows, in the batch's transaction, so that a request
reads a few rows instead of recomputing it: the running burn totals (getAvaxSupply) and the
reward UTXOs keyed by who may ask for them (listHistoricalPrimaryNetworkRewards).

Stage: store. Both follow the rows the batch actually inserted, so a replayed batch (its rows
already stored) changes nothing; revision 20261125_0025 filled both from the rows stored
before it.
"""

from __future__ import annotations

from collections.abc import Sequence

import orjson
from sqlalchemy import Connection, select

from avadata.store import dialect
from avadata.store.primary.prepare import BlockRows, Row
from avadata.store.schema import (
    primary_burn_totals,
    primary_reward_keys,
    primary_tx_burns,
    primary_validations,
)

_B, _T = primary_tx_burns.c, primary_burn_totals.c


def write(conn: Connection, rows: Sequence[BlockRows]) -> int:
    """The batch's burn rows with their totals, then its reward UTXOs' keys (its periods are
    written by then); returns the burn rows handed to the store."""
    burns = [b for r in rows for b in r.burns]
    insert_burns(conn, burns)
    index_rewards(conn, [u for r in rows for u in r.utxos])
    return len(burns)


def insert_burns(conn: Connection, rows: Sequence[Row]) -> None:
    """Insert the burn rows (insert-or-ignore) and raise the totals by the ones inserted.
    Added in Python: the totals are U256 (a sum of BigIntegers can pass 2**63), which SQLite
    keeps as text past 2**63, so `total + x` in SQL is not an option on both engines."""
    if not rows:
        return
    stmt = dialect.insert_or_ignore(conn, primary_tx_burns).returning(
        _B.asset_id, _B.blockchain_id, _B.burned, _B.l1_deposit
    )
    added: dict[tuple[str, str], list[int]] = {}
    for asset, chain, burned, deposit in conn.execute(stmt, list(rows)):
        sums = added.setdefault((str(asset), str(chain)), [0, 0])
        sums[0] += int(burned)
        sums[1] += int(deposit)
    if not added:
        return
    stored = {
        (str(a), str(c)): (int(b), int(d))
        for a, c, b, d in conn.execute(
            select(_T.asset_id, _T.blockchain_id, _T.burned, _T.l1_deposit).where(
                _T.asset_id.in_(sorted({a for a, _ in added}))
            )
        )
    }
    values = []
    for (asset, chain), (burned, deposit) in sorted(added.items()):
        before = stored.get((asset, chain), (0, 0))
        values.append([asset, chain, before[0] + burned, before[1] + deposit])
    upsert = dialect.upsert(
        conn,
        primary_burn_totals,
        keys=("asset_id", "blockchain_id"),
        set_=lambda ex: {"burned": ex.burned, "l1_deposit": ex.l1_deposit},
    )
    names = ("asset_id", "blockchain_id", "burned", "l1_deposit")
    conn.execute(upsert, [dict(zip(names, row, strict=True)) for row in values])


def reward_key_rows(utxo_id: str, rewarded_at: int, node_id: str, addresses: str) -> list[Row]:
    """A reward UTXO's rows: its period's node ID and each of its reward addresses (the JSON
    list primary_validations keeps)."""
    owners = dict.fromkeys([str(node_id), *(str(a) for a in orjson.loads(addresses or "[]"))])
    return [{"owner": o, "rewarded_at": int(rewarded_at), "utxo_id": utxo_id} for o in owners]


def index_rewards(conn: Connection, utxos: Sequence[Row]) -> None:
    """Key the batch's reward UTXOs by their period (already written: a period is opened
    before it is rewarded, and the batch's own periods are inserted first)."""
    rewards = [u for u in utxos if u.get("reward_type") is not None]
    if not rewards:
        return
    v = primary_validations.c
    wanted = sorted({str(u["tx_hash"]) for u in rewards})
    stmt = select(v.tx_hash, v.node_id, v.reward_addresses).where(v.tx_hash.in_(wanted))
    periods: dict[str, tuple[str, str]] = {}
    for tx, node, addresses in conn.execute(stmt):
        periods[str(tx)] = (str(node), str(addresses))
    rows = [
        row
        for u in rewards
        if str(u["tx_hash"]) in periods
        for row in reward_key_rows(
            str(u["utxo_id"]), int(u["block_timestamp"]), *periods[str(u["tx_hash"])]
        )
    ]
    if rows:
        conn.execute(dialect.insert_or_ignore(conn, primary_reward_keys), rows)
