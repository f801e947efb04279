"""primary_l1_validators gets deactivation_owner: who may disable each L1 validator
(listL1Validators' deactivationOwner; the creating tx carries it, no later tx does), and
primary_validations an index in listValidators' and listDelegators' default order (the
staking tx's block time), so a page reads no more than its rows.

Revision ID: 20261125_0019
Revises: 20261125_0020
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "20261125_0019"
down_revision: str | None = "20261125_0020"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("primary_l1_validators") as batch:
        batch.add_column(sa.Column("deactivation_owner", sa.Text(), nullable=True))
    op.create_index(
        op.f("ix_primary_validations_block_timestamp_tx_hash"),
        "primary_validations",
        ["block_timestamp", "tx_hash"],
    )


def downgrade() -> None:
    op.drop_index(
        op.f("ix_primary_validations_block_timestamp_tx_hash"), table_name="primary_validations"
    )
    with op.batch_alter_table("primary_l1_validators") as batch:
        batch.drop_column("deactivation_owner")
