"""X-chain asset links (primary_asset_txs) for listAssetTransactions, filled from what the
store already holds: each X-chain tx that created the asset (its ID is the tx's), emitted a
UTXO of it or consumed one.

Revision ID: 20261125_0015
Revises: 20261125_0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "20261125_0015"
down_revision: str | None = "20261125_0011"
branch_labels: str | None = None
depends_on: str | None = None

_LINKED = """
SELECT u.asset_id, t.blockchain_id, t.block_timestamp, t.block_number, t.tx_index, t.tx_hash
FROM primary_utxos u JOIN primary_txs t ON t.blockchain_id = 'X' AND t.tx_hash = u.tx_hash
UNION
SELECT u.asset_id, t.blockchain_id, t.block_timestamp, t.block_number, t.tx_index, t.tx_hash
FROM primary_utxos u
JOIN primary_txs t ON t.blockchain_id = 'X' AND t.tx_hash = u.consuming_tx_hash
WHERE u.consumed_on = 'X'
UNION
SELECT a.asset_id, t.blockchain_id, t.block_timestamp, t.block_number, t.tx_index, t.tx_hash
FROM primary_assets a JOIN primary_txs t ON t.blockchain_id = 'X' AND t.tx_hash = a.asset_id
"""


def upgrade() -> None:
    op.create_table(
        "primary_asset_txs",
        sa.Column("asset_id", sa.String(64), nullable=False),
        sa.Column("blockchain_id", sa.String(64), nullable=False),
        sa.Column("block_timestamp", sa.BigInteger, nullable=False),
        sa.Column("block_number", sa.BigInteger, nullable=False),
        sa.Column("tx_index", sa.Integer, nullable=False),
        sa.Column("tx_hash", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint(
            "asset_id",
            "blockchain_id",
            "block_timestamp",
            "block_number",
            "tx_index",
            "tx_hash",
            name=op.f("pk_primary_asset_txs"),
        ),
        sqlite_with_rowid=False,
    )
    op.execute(
        "INSERT INTO primary_asset_txs (asset_id, blockchain_id, block_timestamp, block_number,"
        " tx_index, tx_hash) " + _LINKED
    )


def downgrade() -> None:
    op.drop_table("primary_asset_txs")
