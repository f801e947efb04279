"""metric_last_seen gets an index on (scope, kind, last_bucket).

Why: the rolling-window metrics count the addresses whose last active bucket is at or after
a window's first (activeAddresses, activeSenders, deployers); without the index each window
read every address the chain ever saw.

Revision ID: 20261125_0016
Revises: 20261125_0012
"""

from __future__ import annotations

from alembic import op

revision: str = "20261125_0016"
down_revision: str | None = "20261125_0012"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_index(
        "ix_metric_last_seen_scope_kind",
        "metric_last_seen",
        ["scope", "kind", "last_bucket"],
    )


def downgrade() -> None:
    op.drop_index("ix_metric_last_seen_scope_kind", table_name="metric_last_seen")
