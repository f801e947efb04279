"""Staking rewards from the formula: the node's supply anchor, each staker's potential reward
and whether its reward was committed.

Revision ID: 20261124_0009
Revises: 20261124_0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import avadata.store.coltypes

revision: str = "20261124_0009"
down_revision: str | None = "20261124_0008"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("primary_validations") as batch:
        batch.add_column(
            sa.Column("reward_committed", sa.Boolean(create_constraint=False), nullable=True)
        )
        batch.add_column(
            sa.Column("formula_reward", avadata.store.coltypes.U256Text(), nullable=True)
        )
    op.create_table(
        "primary_supply",
        sa.Column("subnet_id", sa.String(length=64), nullable=False),
        sa.Column("supply", avadata.store.coltypes.U256Text(), nullable=False),
        sa.Column("height", sa.BigInteger(), nullable=False),
        sa.Column("start_supply", avadata.store.coltypes.U256Text(), nullable=True),
        sa.PrimaryKeyConstraint("subnet_id", name=op.f("pk_primary_supply")),
    )


def downgrade() -> None:
    op.drop_table("primary_supply")
    with op.batch_alter_table("primary_validations") as batch:
        batch.drop_column("formula_reward")
        batch.drop_column("reward_committed")
