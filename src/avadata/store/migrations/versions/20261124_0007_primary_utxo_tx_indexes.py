"""Indexes to find the UTXOs a transaction emitted and consumed.

Revision ID: 20261124_0007
Revises: 20261124_0006
"""

from __future__ import annotations

from alembic import op

revision: str = "20261124_0007"
down_revision: str | None = "20261124_0006"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_index(
        op.f("ix_primary_utxos_tx_hash_output_index"),
        "primary_utxos",
        ["tx_hash", "output_index"],
    )
    op.create_index(
        op.f("ix_primary_utxos_consuming_tx_hash_utxo_id"),
        "primary_utxos",
        ["consuming_tx_hash", "utxo_id"],
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_primary_utxos_consuming_tx_hash_utxo_id"), table_name="primary_utxos")
    op.drop_index(op.f("ix_primary_utxos_tx_hash_output_index"), table_name="primary_utxos")
