"""Every chain knows its network and identity; the store records its networks.

chains gains network_id, vm_name, the native token (name, symbol, decimals, logo) and
explorer_url; the new table networks records which networks the store holds and which one's
primary network the primary tables hold.

An older store is re-labelled here, without re-indexing, from what it already says: a chain
marked mainnet is on network 1; the C-chains of mainnet (43114) and Fuji (43113) are on their
networks with their blockchain IDs. The rest is filled by the next `avadata index` (from the
node or the chains file).

Revision ID: 20261125_0012
Revises: 20261125_0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "20261125_0012"
down_revision: str | None = "20261125_0011"
branch_labels: str | None = None
depends_on: str | None = None

# Frozen copies of the facts (avadata/networks.py may change; a migration must not).
_C_CHAINS = (
    (43114, 1, "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5", "C-Chain"),
    (43113, 5, "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp", "C-Chain"),
)


def upgrade() -> None:
    with op.batch_alter_table("chains") as batch:
        batch.add_column(sa.Column("network_id", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("vm_name", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("token_name", sa.String(length=200), nullable=True))
        batch.add_column(sa.Column("token_symbol", sa.String(length=32), nullable=True))
        batch.add_column(sa.Column("token_decimals", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("token_logo", sa.Text(), nullable=True))
        batch.add_column(sa.Column("explorer_url", sa.Text(), nullable=True))
    op.create_table(
        "networks",
        sa.Column("network_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("hrp", sa.String(length=32), nullable=False),
        sa.Column("has_primary", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.PrimaryKeyConstraint("network_id", name=op.f("pk_networks")),
    )
    _relabel()


def _relabel() -> None:
    chains = sa.table(
        "chains",
        sa.column("chain_id", sa.BigInteger()),
        sa.column("network", sa.String()),
        sa.column("network_id", sa.BigInteger()),
        sa.column("blockchain_id", sa.String()),
        sa.column("name", sa.String()),
    )
    c = chains.c
    op.execute(chains.update().where(c.network == "mainnet").values(network_id=1))
    for chain_id, network_id, blockchain_id, name in _C_CHAINS:
        op.execute(
            chains.update()
            .where(c.chain_id == chain_id)
            .values(
                network_id=network_id,
                network="mainnet" if network_id == 1 else "testnet",
                blockchain_id=sa.func.coalesce(c.blockchain_id, blockchain_id),
                name=sa.func.coalesce(c.name, name),
            )
        )


def downgrade() -> None:
    op.drop_table("networks")
    with op.batch_alter_table("chains") as batch:
        for name in (
            "explorer_url",
            "token_logo",
            "token_decimals",
            "token_symbol",
            "token_name",
            "vm_name",
            "network_id",
        ):
            batch.drop_column(name)
