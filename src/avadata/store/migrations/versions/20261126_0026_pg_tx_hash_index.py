"""PostgreSQL: the transaction lookup by hash through a hash index on `hash` alone instead of
the B-tree on (chain_id, hash). SQLite: nothing changes (it has no hash indexes).

Why: a hash index entry is a 4-byte hash code instead of the 66-character key, and its insert
does no key comparisons down a tree: that B-tree was the costliest of evm_txs' indexes to
maintain in a backfill's COPYs (docs/benchmarks.md). Its one reader, getTransaction by hash,
is an equality on the hash (the chain a filter on the one or few rows found), which is all a
hash index serves.

Revision ID: 20261126_0026
Revises: 20261125_0025
"""

from __future__ import annotations

from alembic import op

from avadata.store import dialect

revision: str = "20261126_0026"
down_revision: str | None = "20261125_0025"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    if not dialect.has_hash_indexes(op.get_bind()):
        return
    op.drop_index("ix_evm_txs_chain_id_hash", table_name="evm_txs")
    op.create_index("ix_evm_txs_hash", "evm_txs", ["hash"], postgresql_using="hash")


def downgrade() -> None:
    if not dialect.has_hash_indexes(op.get_bind()):
        return
    op.drop_index("ix_evm_txs_hash", table_name="evm_txs")
    op.create_index("ix_evm_txs_chain_id_hash", "evm_txs", ["chain_id", "hash"])
