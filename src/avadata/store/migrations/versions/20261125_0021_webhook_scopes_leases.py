"""Primary-network webhooks' scopes (network, chain, metadata) and the delivery lease that
keeps two processes (`serve`, `index`) from delivering the same webhooks (docs/webhooks.md).

Revision ID: 20261125_0021
Revises: 20261125_0019
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "20261125_0021"
down_revision: str | None = "20261125_0019"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "webhook_scopes",
        sa.Column("webhook_id", sa.String(length=36), nullable=False),
        sa.Column("network", sa.String(length=32), nullable=False),
        sa.Column("chain", sa.String(length=8), nullable=False),
        sa.Column("metadata", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("webhook_id", name=op.f("pk_webhook_scopes")),
    )
    op.create_table(
        "webhook_leases",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("holder", sa.String(length=128), nullable=False),
        sa.Column("expires_at_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_webhook_leases")),
    )


def downgrade() -> None:
    op.drop_table("webhook_leases")
    op.drop_table("webhook_scopes")
