"""Spends of imports whose UTXO (another chain's export) is not indexed yet.

Revision ID: 20261124_0006
Revises: 20261124_0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "20261124_0006"
down_revision: str | None = "20261124_0005"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "primary_pending_spends",
        sa.Column("utxo_id", sa.String(length=64), nullable=False),
        sa.Column("consumed_on", sa.String(length=64), nullable=False),
        sa.Column("consuming_tx_hash", sa.String(length=64), nullable=False),
        sa.Column("consuming_block_number", sa.BigInteger(), nullable=False),
        sa.Column("consuming_block_timestamp", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("utxo_id", name=op.f("pk_primary_pending_spends")),
    )


def downgrade() -> None:
    op.drop_table("primary_pending_spends")
