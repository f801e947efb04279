"""Recompute every metric bucket from the stored rows: `avadata metrics rebuild`.

Stage: store (the metrics rollup's writing half). Reads blocks, transactions, transfers and
contracts back from the store and feeds them, block range by block range, through the same
rollup and applier the indexer uses (and the stored P-chain's periods and L1 validation txs
through the P-chain rollup's writer), after emptying the rollup tables, all in ONE transaction:
readers see the old buckets or the new ones, never a half-built mix. Page tokens are left
alone.

Use it after indexing without the applier, after changing a chain's network, or to check the
rollups: a rebuild of a consistent store changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, Engine, delete, select

from avadata.store.metrics import pchain_inputs, pchain_writer
from avadata.store.metrics.rollup_inputs import stored_changes
from avadata.store.metrics.rollup_writer import apply_changes
from avadata.store.schema import (
    chains,
    metric_blocks,
    metric_counts,
    metric_first_seen,
    metric_l1_accounts,
    metric_l1_fee_days,
    metric_last_seen,
    metric_members,
    metric_p_clock,
    metric_scopes,
    metric_staking_days,
    metric_staking_marks,
    metric_sums,
)

ROLLUP_TABLES = (
    metric_blocks,
    metric_sums,
    metric_members,
    metric_counts,
    metric_first_seen,
    metric_last_seen,
    metric_scopes,
    # The P-chain's (store/metrics/pchain_writer.py).
    metric_p_clock,
    metric_staking_marks,
    metric_staking_days,
    metric_l1_accounts,
    metric_l1_fee_days,
)


@dataclass(slots=True)
class RebuildStats:
    chains: int = 0
    blocks: int = 0
    transactions: int = 0


def rebuild(engine: Engine, *, chunk_blocks: int = 5_000) -> RebuildStats:
    """Empty the rollup tables and roll every stored block up again, in one transaction."""
    with engine.begin() as conn:
        return rebuild_in(conn, chunk_blocks=chunk_blocks)


def rebuild_in(conn: Connection, *, chunk_blocks: int = 5_000) -> RebuildStats:
    stats = RebuildStats()
    for table in ROLLUP_TABLES:
        conn.execute(delete(table))
    chain_ids = [
        int(r[0]) for r in conn.execute(select(chains.c.chain_id).order_by(chains.c.chain_id))
    ]
    for chain_id in chain_ids:
        stats.chains += 1
        for ch, txs in stored_changes(conn, chain_id, chunk_blocks):
            stats.blocks += len(ch.blocks)
            stats.transactions += txs
            apply_changes(conn, ch)
    p_chain = pchain_inputs.stored_changes(conn)
    if p_chain is not None:
        pchain_writer.apply_changes(conn, [p_chain])
    return stats
