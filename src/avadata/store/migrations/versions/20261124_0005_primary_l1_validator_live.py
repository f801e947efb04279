"""The node's view of each L1 validator (platform.getL1Validator): its remaining balance.

Revision ID: 20261124_0005
Revises: 20261124_0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import avadata.store.coltypes

revision: str = "20261124_0005"
down_revision: str | None = "20261124_0004"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "primary_l1_validator_live",
        sa.Column("validation_id", sa.String(length=64), nullable=False),
        sa.Column("balance", avadata.store.coltypes.U256Text(), nullable=False),
        sa.Column("removed", sa.Boolean(), nullable=False),
        sa.Column("height", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("validation_id", name=op.f("pk_primary_l1_validator_live")),
    )


def downgrade() -> None:
    op.drop_table("primary_l1_validator_live")
