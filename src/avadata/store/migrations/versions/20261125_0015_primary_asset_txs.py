"""X-chain asset links (primary_asset_txs) for listAssetTransactions, filled from what the
store already holds: each X-chain tx that created the asset (its ID is the tx's), emitted a
UTXO of it or consumed one. P- and X-chain blocks and X-chain vertices (primary_blocks) for
the block and vertex listings: empty until the P- and X-chains are re-indexed (the
containers' headers are in no table).

Revision ID: 20261125_0015
Revises: 20261125_0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "20261125_0015"
down_revision: str | None = "20261125_0014"
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

    _blocks()


def _blocks() -> None:
    op.create_table(
        "primary_blocks",
        sa.Column("blockchain_id", sa.String(64), nullable=False),
        sa.Column("block_id", sa.String(64), nullable=False),
        sa.Column("height", sa.BigInteger, nullable=False),
        sa.Column("idx", sa.BigInteger, nullable=False),
        sa.Column("block_timestamp", sa.BigInteger, nullable=False),
        sa.Column("parent_ids", sa.Text, nullable=False),
        sa.Column("block_type", sa.String(64), nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("tx_hashes", sa.Text, nullable=False),
        sa.Column("proposer_parent_id", sa.String(64)),
        sa.Column("proposer_p_height", sa.BigInteger),
        sa.Column("proposer_timestamp", sa.BigInteger),
        sa.Column("proposer_node_id", sa.String(64)),
        sa.PrimaryKeyConstraint("blockchain_id", "block_id", name=op.f("pk_primary_blocks")),
    )
    for cols in (
        ["blockchain_id", "idx"],
        ["blockchain_id", "height"],
        ["blockchain_id", "proposer_node_id", "idx"],
    ):
        name = "ix_primary_blocks_" + "_".join(cols[:2])  # the convention names two
        op.create_index(op.f(name), "primary_blocks", cols)


def downgrade() -> None:
    op.drop_table("primary_blocks")
    op.drop_table("primary_asset_txs")
