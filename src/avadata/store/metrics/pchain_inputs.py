"""The stored P-chain as the P-chain rollup's input: what `avadata metrics rebuild` feeds
store/metrics/pchain_writer.py (the indexer feeds it the blocks it decoded instead).

Stage: store (reads only).
"""

from __future__ import annotations

import orjson
from sqlalchemy import Connection, func, select

from avadata.metrics import l1_fees
from avadata.metrics.pchain_rollup import PBlockChanges, Period
from avadata.store.metrics.staking_reads import PERIOD_END
from avadata.store.primary.queries.validators import p_chain_now
from avadata.store.schema import primary_l1_validation_txs, primary_txs, primary_validations


def stored_changes(conn: Connection) -> PBlockChanges | None:
    """Every stored P-chain period and L1 validation tx as one block's changes at the newest
    P height: periods end where they end now (a removal already applied), L1 txs in P-chain
    order."""
    now = p_chain_now(conn)
    if now is None:
        return None
    t, vt, v = primary_txs.c, primary_l1_validation_txs.c, primary_validations.c
    height = conn.execute(select(func.max(t.block_number)).where(t.blockchain_id == "P")).scalar()
    out = PBlockChanges(int(height or 0), now)
    q = select(v.tx_hash, v.kind, v.subnet_id, v.start_ts, PERIOD_END, v.amount_staked)
    out.opened = [
        Period(str(h), str(k), str(s), int(a), int(e), int(w))
        for h, k, s, a, e, w in conn.execute(q)
    ]
    q2 = (
        select(vt.validation_id, vt.block_timestamp, t.tx_type, t.body)
        .join(primary_txs, (t.tx_hash == vt.tx_hash) & (t.blockchain_id == "P"))
        .order_by(vt.block_number, vt.tx_index, vt.validation_id)
    )
    for vid, ts, tx_type, body in conn.execute(q2):
        out.l1.append(
            (str(vid), l1_fees.events_of(str(vid), int(ts), str(tx_type), orjson.loads(body)))
        )
    return out
