"""X-chain assets from their CreateAssetTx.

Revision ID: 20261124_0003
Revises: 20261124_0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "20261124_0003"
down_revision: str | None = "20261124_0002"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "primary_assets",
        sa.Column("asset_id", sa.String(length=64), nullable=False),
        sa.Column("blockchain_id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("symbol", sa.Text(), nullable=False),
        sa.Column("denomination", sa.Integer(), nullable=False),
        sa.Column("asset_type", sa.String(length=16), nullable=False),
        sa.Column("cap", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("asset_id", name=op.f("pk_primary_assets")),
    )


def downgrade() -> None:
    op.drop_table("primary_assets")
