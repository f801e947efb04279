"""Failed transactions get a partial index; the (chain, success, block, index) index goes.

Why: every transaction entered that index for the one listing by status; the successful ones
now list along the primary key (skipping the few failed), so nearly all transactions enter
three secondary indexes instead of four (docs/store.md).

Revision ID: 20261125_0010
Revises: 20261124_0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "20261125_0010"
down_revision: str | None = "20261124_0009"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.drop_index("ix_evm_txs_chain_id_success", table_name="evm_txs")
    op.create_index(
        "ix_evm_txs_failed",
        "evm_txs",
        ["chain_id", "block_number", "tx_index"],
        sqlite_where=sa.text("success = 0"),
        postgresql_where=sa.text("NOT success"),
    )


def downgrade() -> None:
    op.drop_index("ix_evm_txs_failed", table_name="evm_txs")
    op.create_index(
        "ix_evm_txs_chain_id_success",
        "evm_txs",
        ["chain_id", "success", "block_number", "tx_index"],
    )
