"""Transaction exports: each key's export operations, their plan and where each stands
(POST /v1/operations/transactions:export, GET /v1/operations/{operationId}).

Revision ID: 20261125_0017
Revises: 20261125_0015
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "20261125_0017"
down_revision: str | None = "20261125_0015"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "export_operations",
        sa.Column("operation_id", sa.String(length=36), nullable=False),
        sa.Column("owner", sa.String(length=16), nullable=False),
        sa.Column("created_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("updated_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("operation_type", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=32), nullable=False),
        sa.Column("plan", sa.Text(), nullable=False),
        sa.Column("position", sa.Text(), nullable=False),
        sa.Column("rows_written", sa.BigInteger(), nullable=False),
        sa.Column("file_mark", sa.BigInteger(), nullable=False),
        sa.Column("code", sa.String(length=32), nullable=True),
        sa.Column("message", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("operation_id", name=op.f("pk_export_operations")),
    )
    with op.batch_alter_table("export_operations", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_export_operations_status_created_at_ms"),
            ["status", "created_at_ms"],
            unique=False,
        )


def downgrade() -> None:
    with op.batch_alter_table("export_operations", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_export_operations_status_created_at_ms"))
    op.drop_table("export_operations")
