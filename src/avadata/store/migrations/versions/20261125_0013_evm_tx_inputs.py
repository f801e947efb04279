"""evm_tx_inputs: a transaction's call data and EIP-1559 fee caps, for getTransaction.

Why: the Data API's transaction detail requires `input` (and shows the fee caps); they live
apart from evm_txs so that the lists, which read whole evm_txs rows, do not carry call data.
Transactions indexed before this revision have no row here (docs/compatibility.md).

Revision ID: 20261125_0013
Revises: 20261125_0016
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import avadata.store.coltypes

revision: str = "20261125_0013"
down_revision: str | None = "20261125_0016"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "evm_tx_inputs",
        sa.Column("chain_id", sa.BigInteger(), nullable=False),
        sa.Column("block_number", sa.BigInteger(), nullable=False),
        sa.Column("tx_index", sa.Integer(), nullable=False),
        sa.Column("input", sa.Text(), nullable=False),
        sa.Column("max_fee_per_gas", avadata.store.coltypes.U256(), nullable=True),
        sa.Column("max_priority_fee_per_gas", avadata.store.coltypes.U256(), nullable=True),
        sa.PrimaryKeyConstraint(
            "chain_id", "block_number", "tx_index", name=op.f("pk_evm_tx_inputs")
        ),
    )


def downgrade() -> None:
    op.drop_table("evm_tx_inputs")
