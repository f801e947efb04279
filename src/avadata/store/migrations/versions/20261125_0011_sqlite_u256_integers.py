"""SQLite: uint256 columns hold an INTEGER below 2**63 and padded text above (was: all text).

Why: 78 padded digits per gas price, nonce and value made evm_txs rows twice their size
(the store's and the writer's figures: docs/benchmarks.md).
Each table with such a column is rebuilt on SQLite (`dialect.u256_storage`); PostgreSQL's
NUMERIC(78, 0) columns are unchanged.

Revision ID: 20261125_0011
Revises: 20261125_0010
"""

from __future__ import annotations

from alembic import op

from avadata.store import dialect

revision: str = "20261125_0011"
down_revision: str | None = "20261125_0010"
branch_labels: str | None = None
depends_on: str | None = None

# Every uint256 column at this revision, by table.
_COLUMNS: dict[str, tuple[str, ...]] = {
    "erc1155_balances": ("token_id",),
    "erc721_owners": ("token_id",),
    "evm_blocks": ("base_fee", "fees_spent"),
    "evm_txs": ("value", "gas_price", "nonce"),
    "internal_calls": ("value",),
    "metric_sums": ("fees", "gas_price_sum", "gas_price_max"),
    "native_balances": ("balance",),
    "nft_tokens": ("token_id",),
    "primary_l1_validator_live": ("balance",),
    "primary_staker_live": ("potential_reward", "delegatee_reward"),
    "primary_supply": ("supply", "start_supply"),
    "primary_utxos": ("amount",),
    "primary_validations": (
        "amount_staked",
        "validation_reward",
        "delegation_reward",
        "formula_reward",
    ),
    "token_transfers": ("token_id", "value"),
}


def upgrade() -> None:
    dialect.u256_storage(op.get_bind(), _COLUMNS, integers=True)


def downgrade() -> None:
    dialect.u256_storage(op.get_bind(), _COLUMNS, integers=False)
