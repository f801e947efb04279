"""primary_l1_validators gets deactivation_owner: who may disable each L1 validator
(listL1Validators' deactivationOwner; the creating tx carries it, no later tx does).

Revision ID: 20261125_0019
Revises: 20261125_0015
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "20261125_0019"
down_revision: str | None = "20261125_0015"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("primary_l1_validators") as batch:
        batch.add_column(sa.Column("deactivation_owner", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("primary_l1_validators") as batch:
        batch.drop_column("deactivation_owner")
