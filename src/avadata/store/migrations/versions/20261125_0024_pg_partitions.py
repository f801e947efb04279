"""PostgreSQL: the large chain tables partitioned by chain (LIST) and block range (RANGE),
an existing store's rows moved into a leaf per block range (store/partitions.py, docs/store.md).
SQLite: nothing changes.

Revision ID: 20261125_0024
Revises: 20261125_0023
"""

from __future__ import annotations

from alembic import op

from avadata.store import partitions

revision: str = "20261125_0024"
down_revision: str | None = "20261125_0023"
branch_labels: str | None = None
depends_on: str | None = None

# Frozen: the tables this revision partitions, whatever partitions.PARTITIONED says later.
_TABLES = tuple(
    "evm_txs evm_tx_inputs evm_logs token_transfers transfer_participants internal_calls "
    "internal_call_participants".split()
)


def upgrade() -> None:
    partitions.convert(op.get_bind(), partitioned=True, tables=_TABLES)


def downgrade() -> None:
    partitions.convert(op.get_bind(), partitioned=False, tables=_TABLES)
