"""metric_sums: running totals per chain and interval (run_txs, run_gas_used, run_fees,
run_gas_price_sum, run_contracts) and the millisecond times of each bucket's first and last
block (first_ms, last_ms: sub-second blocks, ACP-226).

Why: a rolling window's sums (getEvmChainRollingWindowMetrics) were the sum of the window's
buckets per request; with running totals a window is the newest bucket's total minus the one
before the window. avgTps/avgGps spans were whole seconds while maxTps/maxGps used
timeMilliseconds. The running totals are filled here from the stored sums; first_ms and
last_ms stay NULL for buckets rolled up before (their spans stay in seconds) until `avadata
metrics rebuild` recomputes them from the blocks' stored time_ms.

Revision ID: 20261125_0023
Revises: 20261125_0021
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from avadata.store.coltypes import U256

revision: str = "20261125_0023"
down_revision: str | None = "20261125_0021"
branch_labels: str | None = None
depends_on: str | None = None

# (running total column, the per-bucket column it adds up, type).
_RUNNING = (
    ("run_txs", "txs", sa.BigInteger),
    ("run_gas_used", "gas_used", sa.BigInteger),
    ("run_fees", "fees", U256),
    ("run_gas_price_sum", "gas_price_sum", U256),
    ("run_contracts", "contracts", sa.BigInteger),
)


def upgrade() -> None:
    op.add_column("metric_sums", sa.Column("first_ms", sa.BigInteger, nullable=True))
    op.add_column("metric_sums", sa.Column("last_ms", sa.BigInteger, nullable=True))
    for name, _, kind in _RUNNING:
        column = sa.Column(name, kind(), nullable=False, server_default=sa.text("0"))
        op.add_column("metric_sums", column)
    _fill_running_totals(op.get_bind())


def _fill_running_totals(conn: sa.Connection) -> None:
    sums = sa.table(
        "metric_sums",
        sa.column("chain_id", sa.BigInteger),
        sa.column("interval", sa.String),
        sa.column("bucket", sa.BigInteger),
        *(sa.column(source, kind()) for _, source, kind in _RUNNING),
        *(sa.column(name, kind()) for name, _, kind in _RUNNING),
    )
    c = sums.c
    rows = conn.execute(
        sa.select(c.chain_id, c.interval, c.bucket, *(c[s] for _, s, _ in _RUNNING)).order_by(
            c.chain_id, c.interval, c.bucket
        )
    ).all()
    params: list[dict[str, object]] = []
    key: tuple[int, str] | None = None
    totals = [0] * len(_RUNNING)
    for r in rows:
        if (r.chain_id, r.interval) != key:
            key, totals = (r.chain_id, r.interval), [0] * len(_RUNNING)
        totals = [t + int(v) for t, v in zip(totals, r[3:], strict=True)]
        params.append(
            {"k_chain": r.chain_id, "k_interval": r.interval, "k_bucket": r.bucket}
            | {name: t for (name, _, _), t in zip(_RUNNING, totals, strict=True)}
        )
    if params:
        stmt = (
            sa.update(sums)
            .where(
                c.chain_id == sa.bindparam("k_chain"),
                c.interval == sa.bindparam("k_interval"),
                c.bucket == sa.bindparam("k_bucket"),
            )
            .values({name: sa.bindparam(name) for name, _, _ in _RUNNING})
        )
        conn.execute(stmt, params)


def downgrade() -> None:
    with op.batch_alter_table("metric_sums") as batch:
        for name in ("run_contracts", "run_gas_price_sum", "run_fees", "run_gas_used", "run_txs"):
            batch.drop_column(name)
        batch.drop_column("last_ms")
        batch.drop_column("first_ms")
