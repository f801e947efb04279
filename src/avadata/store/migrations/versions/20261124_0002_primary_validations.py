"""Primary-network validation periods and the node's live staker facts.

Revision ID: 20261124_0002
Revises: 20261122_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import avadata.store.coltypes

revision: str = "20261124_0002"
down_revision: str | None = "20261122_0001"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "primary_validations",
        sa.Column("tx_hash", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("node_id", sa.String(length=64), nullable=False),
        sa.Column("subnet_id", sa.String(length=64), nullable=False),
        sa.Column("amount_staked", avadata.store.coltypes.U256Text(), nullable=False),
        sa.Column("delegation_fee", sa.Integer(), nullable=True),
        sa.Column("start_ts", sa.BigInteger(), nullable=False),
        sa.Column("end_ts", sa.BigInteger(), nullable=False),
        sa.Column("bls_public_key", sa.Text(), nullable=True),
        sa.Column("bls_pop", sa.Text(), nullable=True),
        sa.Column("reward_addresses", sa.Text(), nullable=False),
        sa.Column("block_timestamp", sa.BigInteger(), nullable=False),
        sa.Column("reward_tx_hash", sa.String(length=64), nullable=True),
        sa.Column("reward_timestamp", sa.BigInteger(), nullable=True),
        sa.Column("validation_reward", avadata.store.coltypes.U256Text(), nullable=True),
        sa.Column("delegation_reward", avadata.store.coltypes.U256Text(), nullable=True),
        sa.Column("remove_tx_hash", sa.String(length=64), nullable=True),
        sa.Column("remove_timestamp", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("tx_hash", name=op.f("pk_primary_validations")),
    )
    with op.batch_alter_table("primary_validations", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_primary_validations_node_id_start_ts"),
            ["node_id", "start_ts", "tx_hash"],
            unique=False,
        )
    op.create_table(
        "primary_staker_live",
        sa.Column("tx_hash", sa.String(length=64), nullable=False),
        sa.Column("potential_reward", avadata.store.coltypes.U256Text(), nullable=False),
        sa.Column("delegatee_reward", avadata.store.coltypes.U256Text(), nullable=False),
        sa.Column("uptime", sa.Float(), nullable=False),
        sa.Column("connected", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("tx_hash", name=op.f("pk_primary_staker_live")),
    )


def downgrade() -> None:
    op.drop_table("primary_staker_live")
    with op.batch_alter_table("primary_validations", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_primary_validations_node_id_start_ts"))
    op.drop_table("primary_validations")
