"""L1 validator balance refunds: who gets them, and which UTXO each disable or removal made.

Revision ID: 20261124_0008
Revises: 20261124_0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "20261124_0008"
down_revision: str | None = "20261124_0007"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("primary_l1_validators") as batch:
        batch.add_column(sa.Column("remaining_balance_owner", sa.Text(), nullable=True))
    op.create_table(
        "primary_l1_refunds",
        sa.Column("utxo_id", sa.String(length=64), nullable=False),
        sa.Column("tx_hash", sa.String(length=64), nullable=False),
        sa.Column("output_index", sa.Integer(), nullable=False),
        sa.Column("validation_id", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("utxo_id", name=op.f("pk_primary_l1_refunds")),
    )
    op.create_index(
        op.f("ix_primary_l1_refunds_tx_hash_utxo_id"), "primary_l1_refunds", ["tx_hash", "utxo_id"]
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_primary_l1_refunds_tx_hash_utxo_id"), table_name="primary_l1_refunds")
    op.drop_table("primary_l1_refunds")
    with op.batch_alter_table("primary_l1_validators") as batch:
        batch.drop_column("remaining_balance_owner")
