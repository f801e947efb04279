"""The P-chain's metric rollups (staking and L1 validator fee series rolled up while indexing),
the rows-written counters GET /metrics reads, and the blocks' millisecond times (sub-second
blocks, ACP-226: evm_blocks.time_ms and metric_blocks.time_ms, NULL for blocks indexed before).

Why: the staking and L1 fee series were computed per request from every validation period
and every L1 validation tx; the primary indexer now keeps them (store/metrics/pchain_writer.py).
The tables start empty: `avadata metrics rebuild` fills them from the stored P-chain (or the
next P-chain batches do, for the days after them).

Revision ID: 20261125_0020
Revises: 20261125_0018
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from avadata.store.coltypes import U256

revision: str = "20261125_0020"
down_revision: str | None = "20261125_0018"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    # Sub-second blocks (ACP-226): the header's timeMilliseconds, where it has one.
    for table in ("evm_blocks", "metric_blocks"):
        op.add_column(table, sa.Column("time_ms", sa.BigInteger, nullable=True))
    op.create_table(
        "metric_p_clock",
        sa.Column("chain", sa.String(8), nullable=False),
        sa.Column("height", sa.BigInteger, nullable=False),
        sa.Column("now", sa.BigInteger, nullable=False),
        sa.Column("closed_day", sa.BigInteger),
        sa.PrimaryKeyConstraint("chain", name=op.f("pk_metric_p_clock")),
    )
    op.create_table(
        "metric_staking_marks",
        sa.Column("tx_hash", sa.String(64), nullable=False),
        sa.Column("edge", sa.String(1), nullable=False),
        sa.Column("subnet_id", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("at", sa.BigInteger, nullable=False),
        sa.Column("weight", U256(), nullable=False),
        sa.PrimaryKeyConstraint("tx_hash", "edge", name=op.f("pk_metric_staking_marks")),
    )
    op.create_index(
        op.f("ix_metric_staking_marks_subnet_id_kind"),
        "metric_staking_marks",
        ["subnet_id", "kind", "at"],
    )
    op.create_index(
        op.f("ix_metric_staking_marks_at_tx_hash"), "metric_staking_marks", ["at", "tx_hash"]
    )
    op.create_table(
        "metric_staking_days",
        sa.Column("subnet_id", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("day", sa.BigInteger, nullable=False),
        sa.Column("count", sa.BigInteger, nullable=False),
        sa.Column("weight", U256(), nullable=False),
        sa.PrimaryKeyConstraint("subnet_id", "kind", "day", name=op.f("pk_metric_staking_days")),
    )
    op.create_table(
        "metric_l1_accounts",
        sa.Column("validation_id", sa.String(64), nullable=False),
        sa.Column("subnet_id", sa.String(64)),
        sa.Column("node_id", sa.String(64)),
        sa.Column("first_ts", sa.BigInteger, nullable=False),
        sa.Column("balance", U256(), nullable=False),
        sa.Column("since", sa.BigInteger),
        sa.PrimaryKeyConstraint("validation_id", name=op.f("pk_metric_l1_accounts")),
    )
    op.create_table(
        "metric_l1_fee_days",
        sa.Column("validation_id", sa.String(64), nullable=False),
        sa.Column("day", sa.BigInteger, nullable=False),
        sa.Column("fee", sa.BigInteger, nullable=False),
        sa.Column("balance", U256(), nullable=False),
        sa.PrimaryKeyConstraint("validation_id", "day", name=op.f("pk_metric_l1_fee_days")),
    )
    op.create_table(
        "metric_rows_written",
        sa.Column("source", sa.String(64), nullable=False),
        sa.Column("table_name", sa.String(64), nullable=False),
        sa.Column("rows", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("source", "table_name", name=op.f("pk_metric_rows_written")),
    )


def downgrade() -> None:
    for table in (
        "metric_rows_written",
        "metric_l1_fee_days",
        "metric_l1_accounts",
        "metric_staking_days",
        "metric_staking_marks",
        "metric_p_clock",
    ):
        op.drop_table(table)
    for table in ("metric_blocks", "evm_blocks"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("time_ms")
