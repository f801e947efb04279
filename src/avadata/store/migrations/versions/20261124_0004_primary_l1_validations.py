"""L1 validators kept from the P-chain txs, and which txs relate to each validation.

Revision ID: 20261124_0004
Revises: 20261124_0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "20261124_0004"
down_revision: str | None = "20261124_0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "primary_l1_validators",
        sa.Column("validation_id", sa.String(length=64), nullable=False),
        sa.Column("subnet_id", sa.String(length=64), nullable=False),
        sa.Column("node_id", sa.String(length=64), nullable=False),
        sa.Column("created_tx_hash", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("validation_id", name=op.f("pk_primary_l1_validators")),
    )
    op.create_table(
        "primary_l1_validation_txs",
        sa.Column("validation_id", sa.String(length=64), nullable=False),
        sa.Column("block_timestamp", sa.BigInteger(), nullable=False),
        sa.Column("block_number", sa.BigInteger(), nullable=False),
        sa.Column("tx_index", sa.Integer(), nullable=False),
        sa.Column("tx_hash", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint(
            "validation_id",
            "block_timestamp",
            "block_number",
            "tx_index",
            "tx_hash",
            name=op.f("pk_primary_l1_validation_txs"),
        ),
        sqlite_with_rowid=False,
    )


def downgrade() -> None:
    op.drop_table("primary_l1_validation_txs")
    op.drop_table("primary_l1_validators")
