"""What each primary-network tx burned (primary_tx_burns), and partial indexes of the UTXOs
with a locktime, for getAvaxSupply. The burns are filled by the indexer from the txs it
decodes: a store indexed before this revision holds none for the txs it already had until
they are indexed again into a fresh store (docs/primary.md).

Revision ID: 20261125_0018
Revises: 20261125_0017
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "20261125_0018"
down_revision: str | None = "20261125_0017"
branch_labels: str | None = None
depends_on: str | None = None

_LOCKED = (
    ("ix_primary_utxos_platform_locked", "platform_locktime"),
    ("ix_primary_utxos_stakeable_locked", "stakeable_locktime"),
)


def upgrade() -> None:
    op.create_table(
        "primary_tx_burns",
        sa.Column("asset_id", sa.String(64), nullable=False),
        sa.Column("blockchain_id", sa.String(64), nullable=False),
        sa.Column("tx_hash", sa.String(64), nullable=False),
        sa.Column("burned", sa.BigInteger, nullable=False),
        sa.Column("l1_deposit", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint(
            "asset_id", "blockchain_id", "tx_hash", name=op.f("pk_primary_tx_burns")
        ),
        sqlite_with_rowid=False,
    )
    for name, column in _LOCKED:
        op.create_index(
            name,
            "primary_utxos",
            [column],
            sqlite_where=sa.text(f"{column} > 0"),
            postgresql_where=sa.text(f"{column} > 0"),
        )


def downgrade() -> None:
    for name, _ in _LOCKED:
        op.drop_index(name, table_name="primary_utxos")
    op.drop_table("primary_tx_burns")
