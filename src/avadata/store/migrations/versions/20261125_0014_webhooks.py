"""Webhooks: each key's webhooks, their watched addresses and delivery cursors, and each
key's signing secret (docs/webhooks.md).

Revision ID: 20261125_0014
Revises: 20261125_0013
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "20261125_0014"
down_revision: str | None = "20261125_0013"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "webhooks",
        sa.Column("webhook_id", sa.String(length=36), nullable=False),
        sa.Column("owner", sa.String(length=16), nullable=False),
        sa.Column("event_type", sa.String(length=64), nullable=False),
        sa.Column("chain_id", sa.BigInteger(), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("include_internal_txs", sa.Boolean(create_constraint=False), nullable=False),
        sa.Column("include_logs", sa.Boolean(create_constraint=False), nullable=False),
        sa.Column("event_signatures", sa.Text(), nullable=False),
        sa.Column("cursor_block", sa.BigInteger(), nullable=False),
        sa.Column("cursor_tx", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("webhook_id", name=op.f("pk_webhooks")),
    )
    with op.batch_alter_table("webhooks", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_webhooks_owner_created_at_ms"),
            ["owner", "created_at_ms", "webhook_id"],
            unique=False,
        )
    op.create_table(
        "webhook_addresses",
        sa.Column("webhook_id", sa.String(length=36), nullable=False),
        sa.Column("address", sa.String(length=42), nullable=False),
        sa.PrimaryKeyConstraint("webhook_id", "address", name=op.f("pk_webhook_addresses")),
        sqlite_with_rowid=False,
    )
    op.create_table(
        "webhook_secrets",
        sa.Column("owner", sa.String(length=16), nullable=False),
        sa.Column("secret", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("owner", name=op.f("pk_webhook_secrets")),
    )


def downgrade() -> None:
    op.drop_table("webhook_secrets")
    op.drop_table("webhook_addresses")
    with op.batch_alter_table("webhooks", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_webhooks_owner_created_at_ms"))
    op.drop_table("webhooks")
