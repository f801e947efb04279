"""initial schema: EVM pipeline

Revision ID: 20261122_0001
Revises:
Create Date: 2026-11-22 21:57:52.847897
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import avadata.store.coltypes

revision: str = "20261122_0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "chains",
        sa.Column("chain_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("name", sa.String(length=200), nullable=True),
        sa.Column("blockchain_id", sa.String(length=64), nullable=True),
        sa.Column("subnet_id", sa.String(length=64), nullable=True),
        sa.Column("network", sa.String(length=16), nullable=True),
        sa.Column("rpc_url", sa.Text(), nullable=True),
        sa.Column("has_traces", sa.Boolean(), server_default=sa.true(), nullable=False),
        sa.CheckConstraint("network IN ('mainnet', 'testnet')", name=op.f("ck_chains_network")),
        sa.PrimaryKeyConstraint("chain_id", name=op.f("pk_chains")),
    )
    op.create_table(
        "contracts",
        sa.Column("chain_id", sa.BigInteger(), nullable=False),
        sa.Column("address", sa.String(length=42), nullable=False),
        sa.Column("block_number", sa.BigInteger(), nullable=False),
        sa.Column("block_timestamp", sa.BigInteger(), nullable=False),
        sa.Column("tx_index", sa.Integer(), nullable=False),
        sa.Column("trace_index", sa.Integer(), nullable=False),
        sa.Column("tx_hash", sa.String(length=66), nullable=False),
        sa.Column("deployer", sa.String(length=42), nullable=False),
        sa.Column("deployer_contract", sa.String(length=42), nullable=True),
        sa.Column("creation_type", sa.String(length=16), nullable=False),
        sa.PrimaryKeyConstraint("chain_id", "address", name=op.f("pk_contracts")),
    )
    with op.batch_alter_table("contracts", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_contracts_chain_id_deployer"),
            ["chain_id", "deployer", "block_number", "tx_index", "trace_index"],
            unique=False,
        )

    op.create_table(
        "erc1155_balances",
        sa.Column("chain_id", sa.BigInteger(), nullable=False),
        sa.Column("token", sa.String(length=42), nullable=False),
        sa.Column("token_id", avadata.store.coltypes.U256Text(), nullable=False),
        sa.Column("holder", sa.String(length=42), nullable=False),
        sa.Column("block_number", sa.BigInteger(), nullable=False),
        sa.Column("balance", avadata.store.coltypes.I256(), nullable=False),
        sa.PrimaryKeyConstraint(
            "chain_id",
            "token",
            "token_id",
            "holder",
            "block_number",
            name=op.f("pk_erc1155_balances"),
        ),
        sqlite_with_rowid=False,
    )
    with op.batch_alter_table("erc1155_balances", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_erc1155_balances_chain_id_holder"),
            ["chain_id", "holder", "token", "token_id", "block_number"],
            unique=False,
        )

    op.create_table(
        "erc20_balances",
        sa.Column("chain_id", sa.BigInteger(), nullable=False),
        sa.Column("token", sa.String(length=42), nullable=False),
        sa.Column("holder", sa.String(length=42), nullable=False),
        sa.Column("block_number", sa.BigInteger(), nullable=False),
        sa.Column("balance", avadata.store.coltypes.I256(), nullable=False),
        sa.PrimaryKeyConstraint(
            "chain_id", "token", "holder", "block_number", name=op.f("pk_erc20_balances")
        ),
        sqlite_with_rowid=False,
    )
    with op.batch_alter_table("erc20_balances", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_erc20_balances_chain_id_holder"),
            ["chain_id", "holder", "token", "block_number"],
            unique=False,
        )

    op.create_table(
        "erc721_owners",
        sa.Column("chain_id", sa.BigInteger(), nullable=False),
        sa.Column("token", sa.String(length=42), nullable=False),
        sa.Column("token_id", avadata.store.coltypes.U256Text(), nullable=False),
        sa.Column("owner", sa.String(length=42), nullable=False),
        sa.Column("block_number", sa.BigInteger(), nullable=False),
        sa.Column("log_index", sa.Integer(), nullable=False),
        sa.Column("batch_index", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("chain_id", "token", "token_id", name=op.f("pk_erc721_owners")),
    )
    with op.batch_alter_table("erc721_owners", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_erc721_owners_chain_id_owner"),
            ["chain_id", "owner", "token", "token_id"],
            unique=False,
        )

    op.create_table(
        "evm_logs",
        sa.Column("chain_id", sa.BigInteger(), nullable=False),
        sa.Column("block_number", sa.BigInteger(), nullable=False),
        sa.Column("log_index", sa.Integer(), nullable=False),
        sa.Column("tx_index", sa.Integer(), nullable=False),
        sa.Column("tx_hash", sa.String(length=66), nullable=False),
        sa.Column("address", sa.String(length=42), nullable=False),
        sa.Column("topic0", sa.String(length=66), nullable=True),
        sa.Column("topic1", sa.String(length=66), nullable=True),
        sa.Column("topic2", sa.String(length=66), nullable=True),
        sa.Column("topic3", sa.String(length=66), nullable=True),
        sa.Column("data", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("chain_id", "block_number", "log_index", name=op.f("pk_evm_logs")),
    )
    op.create_table(
        "evm_txs",
        sa.Column("chain_id", sa.BigInteger(), nullable=False),
        sa.Column("block_number", sa.BigInteger(), nullable=False),
        sa.Column("tx_index", sa.Integer(), nullable=False),
        sa.Column("block_hash", sa.String(length=66), nullable=False),
        sa.Column("block_timestamp", sa.BigInteger(), nullable=False),
        sa.Column("hash", sa.String(length=66), nullable=False),
        sa.Column("from_address", sa.String(length=42), nullable=False),
        sa.Column("to_address", sa.String(length=42), nullable=True),
        sa.Column("value", avadata.store.coltypes.U256Text(), nullable=False),
        sa.Column("gas_limit", sa.BigInteger(), nullable=False),
        sa.Column("gas_price", avadata.store.coltypes.U256Text(), nullable=False),
        sa.Column("gas_used", sa.BigInteger(), nullable=False),
        sa.Column("nonce", avadata.store.coltypes.U256Text(), nullable=False),
        sa.Column("tx_type", sa.Integer(), nullable=False),
        sa.Column("success", sa.Boolean(), nullable=False),
        sa.Column("call_type", sa.String(length=32), nullable=False),
        sa.Column("method_hash", sa.String(length=10), nullable=False),
        sa.Column("method_name", sa.Text(), nullable=True),
        sa.Column("contract_address", sa.String(length=42), nullable=True),
        sa.PrimaryKeyConstraint("chain_id", "block_number", "tx_index", name=op.f("pk_evm_txs")),
    )
    with op.batch_alter_table("evm_txs", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_evm_txs_chain_id_from_address"),
            ["chain_id", "from_address", "block_number", "tx_index"],
            unique=False,
        )
        batch_op.create_index(
            batch_op.f("ix_evm_txs_chain_id_hash"), ["chain_id", "hash"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_evm_txs_chain_id_success"),
            ["chain_id", "success", "block_number", "tx_index"],
            unique=False,
        )
        batch_op.create_index(
            batch_op.f("ix_evm_txs_chain_id_to_address"),
            ["chain_id", "to_address", "block_number", "tx_index"],
            unique=False,
        )

    op.create_table(
        "internal_call_participants",
        sa.Column("chain_id", sa.BigInteger(), nullable=False),
        sa.Column("address", sa.String(length=42), nullable=False),
        sa.Column("block_number", sa.BigInteger(), nullable=False),
        sa.Column("tx_index", sa.Integer(), nullable=False),
        sa.Column("trace_index", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint(
            "chain_id",
            "address",
            "block_number",
            "tx_index",
            "trace_index",
            name=op.f("pk_internal_call_participants"),
        ),
        sqlite_with_rowid=False,
    )
    op.create_table(
        "internal_calls",
        sa.Column("chain_id", sa.BigInteger(), nullable=False),
        sa.Column("block_number", sa.BigInteger(), nullable=False),
        sa.Column("tx_index", sa.Integer(), nullable=False),
        sa.Column("trace_index", sa.Integer(), nullable=False),
        sa.Column("block_hash", sa.String(length=66), nullable=False),
        sa.Column("block_timestamp", sa.BigInteger(), nullable=False),
        sa.Column("tx_hash", sa.String(length=66), nullable=False),
        sa.Column("parent_index", sa.Integer(), nullable=True),
        sa.Column("depth", sa.Integer(), nullable=False),
        sa.Column("call_type", sa.String(length=16), nullable=False),
        sa.Column("from_address", sa.String(length=42), nullable=False),
        sa.Column("to_address", sa.String(length=42), nullable=True),
        sa.Column("value", avadata.store.coltypes.U256Text(), nullable=False),
        sa.Column("gas", sa.BigInteger(), nullable=False),
        sa.Column("gas_used", sa.BigInteger(), nullable=False),
        sa.Column("reverted", sa.Boolean(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint(
            "chain_id", "block_number", "tx_index", "trace_index", name=op.f("pk_internal_calls")
        ),
    )
    op.create_table(
        "native_balances",
        sa.Column("chain_id", sa.BigInteger(), nullable=False),
        sa.Column("address", sa.String(length=42), nullable=False),
        sa.Column("block_number", sa.BigInteger(), nullable=False),
        sa.Column("balance", avadata.store.coltypes.U256Text(), nullable=False),
        sa.PrimaryKeyConstraint(
            "chain_id", "address", "block_number", name=op.f("pk_native_balances")
        ),
        sqlite_with_rowid=False,
    )
    op.create_table(
        "nft_tokens",
        sa.Column("chain_id", sa.BigInteger(), nullable=False),
        sa.Column("token", sa.String(length=42), nullable=False),
        sa.Column("token_id", avadata.store.coltypes.U256Text(), nullable=False),
        sa.Column("standard", sa.String(length=16), nullable=False),
        sa.Column("token_uri", sa.Text(), nullable=True),
        sa.Column(
            "index_status",
            sa.String(length=16),
            server_default=sa.text("'pending'"),
            nullable=False,
        ),
        sa.Column("name", sa.Text(), nullable=True),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("image_uri", sa.Text(), nullable=True),
        sa.Column("external_url", sa.Text(), nullable=True),
        sa.Column("metadata_json", sa.Text(), nullable=True),
        sa.Column("last_updated", sa.BigInteger(), nullable=True),
        sa.Column("attempts", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("next_attempt_at", sa.BigInteger(), server_default=sa.text("0"), nullable=False),
        sa.PrimaryKeyConstraint("chain_id", "token", "token_id", name=op.f("pk_nft_tokens")),
    )
    with op.batch_alter_table("nft_tokens", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_nft_tokens_index_status_next_attempt_at"),
            ["index_status", "next_attempt_at"],
            unique=False,
        )

    op.create_table(
        "token_transfers",
        sa.Column("chain_id", sa.BigInteger(), nullable=False),
        sa.Column("block_number", sa.BigInteger(), nullable=False),
        sa.Column("log_index", sa.Integer(), nullable=False),
        sa.Column("batch_index", sa.Integer(), nullable=False),
        sa.Column("tx_index", sa.Integer(), nullable=False),
        sa.Column("tx_hash", sa.String(length=66), nullable=False),
        sa.Column("block_hash", sa.String(length=66), nullable=False),
        sa.Column("block_timestamp", sa.BigInteger(), nullable=False),
        sa.Column("token", sa.String(length=42), nullable=False),
        sa.Column("standard", sa.String(length=16), nullable=False),
        sa.Column("from_address", sa.String(length=42), nullable=False),
        sa.Column("to_address", sa.String(length=42), nullable=False),
        sa.Column("token_id", avadata.store.coltypes.U256Text(), nullable=True),
        sa.Column("value", avadata.store.coltypes.U256Text(), nullable=False),
        sa.Column("operator", sa.String(length=42), nullable=True),
        sa.PrimaryKeyConstraint(
            "chain_id", "block_number", "log_index", "batch_index", name=op.f("pk_token_transfers")
        ),
    )
    with op.batch_alter_table("token_transfers", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_token_transfers_chain_id_token"),
            ["chain_id", "token", "block_number", "log_index", "batch_index"],
            unique=False,
        )

    op.create_table(
        "tokens",
        sa.Column("chain_id", sa.BigInteger(), nullable=False),
        sa.Column("address", sa.String(length=42), nullable=False),
        sa.Column("standard", sa.String(length=16), nullable=False),
        sa.Column("name", sa.Text(), nullable=True),
        sa.Column("symbol", sa.Text(), nullable=True),
        sa.Column("decimals", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("chain_id", "address", name=op.f("pk_tokens")),
    )
    op.create_table(
        "transfer_participants",
        sa.Column("chain_id", sa.BigInteger(), nullable=False),
        sa.Column("address", sa.String(length=42), nullable=False),
        sa.Column("standard", sa.String(length=16), nullable=False),
        sa.Column("block_number", sa.BigInteger(), nullable=False),
        sa.Column("log_index", sa.Integer(), nullable=False),
        sa.Column("batch_index", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint(
            "chain_id",
            "address",
            "standard",
            "block_number",
            "log_index",
            "batch_index",
            name=op.f("pk_transfer_participants"),
        ),
        sqlite_with_rowid=False,
    )
    op.create_table(
        "cursors",
        sa.Column("chain_id", sa.BigInteger(), nullable=False),
        sa.Column("source", sa.String(length=64), nullable=False),
        sa.Column("block_number", sa.BigInteger(), nullable=False),
        sa.Column("block_hash", sa.String(length=66), nullable=False),
        sa.ForeignKeyConstraint(
            ["chain_id"], ["chains.chain_id"], name=op.f("fk_cursors_chain_id_chains")
        ),
        sa.PrimaryKeyConstraint("chain_id", "source", name=op.f("pk_cursors")),
    )
    op.create_table(
        "evm_blocks",
        sa.Column("chain_id", sa.BigInteger(), nullable=False),
        sa.Column("number", sa.BigInteger(), nullable=False),
        sa.Column("hash", sa.String(length=66), nullable=False),
        sa.Column("parent_hash", sa.String(length=66), nullable=False),
        sa.Column("timestamp", sa.BigInteger(), nullable=False),
        sa.Column("gas_used", sa.BigInteger(), nullable=False),
        sa.Column("gas_limit", sa.BigInteger(), nullable=False),
        sa.Column("base_fee", avadata.store.coltypes.U256Text(), nullable=True),
        sa.Column("tx_count", sa.Integer(), nullable=False),
        sa.Column("miner", sa.String(length=42), nullable=False),
        sa.Column("fees_spent", avadata.store.coltypes.U256Text(), nullable=False),
        sa.Column("cumulative_txs", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["chain_id"], ["chains.chain_id"], name=op.f("fk_evm_blocks_chain_id_chains")
        ),
        sa.PrimaryKeyConstraint("chain_id", "number", name=op.f("pk_evm_blocks")),
    )
    with op.batch_alter_table("evm_blocks", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_evm_blocks_chain_id_hash"), ["chain_id", "hash"], unique=False
        )
    _upgrade_metrics()
    _upgrade_api()
    _upgrade_primary()


def _upgrade_metrics() -> None:
    """Metrics rollup tables (avadata.metrics), added to this first revision before release."""
    op.create_table(
        "metric_blocks",
        sa.Column("chain_id", sa.BigInteger(), nullable=False),
        sa.Column("number", sa.BigInteger(), nullable=False),
        sa.Column("timestamp", sa.BigInteger(), nullable=False),
        sa.Column("tx_count", sa.Integer(), nullable=False),
        sa.Column("gas_used", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("chain_id", "number", name=op.f("pk_metric_blocks")),
        sqlite_with_rowid=False,
    )
    op.create_table(
        "metric_counts",
        sa.Column("scope", sa.String(length=24), nullable=False),
        sa.Column("kind", sa.String(length=1), nullable=False),
        sa.Column("interval", sa.String(length=1), nullable=False),
        sa.Column("bucket", sa.BigInteger(), nullable=False),
        sa.Column("count", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint(
            "scope", "kind", "interval", "bucket", name=op.f("pk_metric_counts")
        ),
    )
    op.create_table(
        "metric_first_seen",
        sa.Column("scope", sa.String(length=24), nullable=False),
        sa.Column("kind", sa.String(length=1), nullable=False),
        sa.Column("address", sa.String(length=42), nullable=False),
        sa.Column("first_day", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("scope", "kind", "address", name=op.f("pk_metric_first_seen")),
        sqlite_with_rowid=False,
    )
    op.create_table(
        "metric_members",
        sa.Column("scope", sa.String(length=24), nullable=False),
        sa.Column("kind", sa.String(length=1), nullable=False),
        sa.Column("interval", sa.String(length=1), nullable=False),
        sa.Column("bucket", sa.BigInteger(), nullable=False),
        sa.Column("address", sa.String(length=42), nullable=False),
        sa.PrimaryKeyConstraint(
            "scope", "kind", "interval", "bucket", "address", name=op.f("pk_metric_members")
        ),
        sqlite_with_rowid=False,
    )
    op.create_table(
        "metric_last_seen",
        sa.Column("scope", sa.String(length=24), nullable=False),
        sa.Column("kind", sa.String(length=1), nullable=False),
        sa.Column("address", sa.String(length=42), nullable=False),
        sa.Column("last_bucket", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("scope", "kind", "address", name=op.f("pk_metric_last_seen")),
        sqlite_with_rowid=False,
    )
    op.create_table(
        "metric_scopes",
        sa.Column("scope", sa.String(length=24), nullable=False),
        sa.Column("chain_ids", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("scope", name=op.f("pk_metric_scopes")),
    )
    op.create_table(
        "metric_page_tokens",
        sa.Column("token", sa.String(length=36), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("query", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("token", name=op.f("pk_metric_page_tokens")),
    )
    with op.batch_alter_table("metric_page_tokens", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_metric_page_tokens_created_at_"), ["created_at"], unique=False
        )
    op.create_table(
        "metric_sums",
        sa.Column("chain_id", sa.BigInteger(), nullable=False),
        sa.Column("interval", sa.String(length=1), nullable=False),
        sa.Column("bucket", sa.BigInteger(), nullable=False),
        sa.Column("blocks", sa.BigInteger(), nullable=False),
        sa.Column("txs", sa.BigInteger(), nullable=False),
        sa.Column("gas_used", sa.BigInteger(), nullable=False),
        sa.Column("fees", avadata.store.coltypes.U256Text(), nullable=False),
        sa.Column("gas_price_sum", avadata.store.coltypes.U256Text(), nullable=False),
        sa.Column("gas_price_max", avadata.store.coltypes.U256Text(), nullable=False),
        sa.Column("contracts", sa.BigInteger(), nullable=False),
        sa.Column("first_ts", sa.BigInteger(), nullable=True),
        sa.Column("last_ts", sa.BigInteger(), nullable=True),
        sa.Column("max_tps", sa.Float(precision=53), nullable=False),
        sa.Column("max_gps", sa.Float(precision=53), nullable=False),
        sa.PrimaryKeyConstraint("chain_id", "interval", "bucket", name=op.f("pk_metric_sums")),
    )


def _downgrade_metrics() -> None:
    op.drop_table("metric_sums")
    with op.batch_alter_table("metric_page_tokens", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_metric_page_tokens_created_at_"))
    op.drop_table("metric_page_tokens")
    op.drop_table("metric_scopes")
    op.drop_table("metric_last_seen")
    op.drop_table("metric_members")
    op.drop_table("metric_first_seen")
    op.drop_table("metric_counts")
    op.drop_table("metric_blocks")


def _upgrade_api() -> None:
    # Data API tables (api keys, shared secrets); added to the initial revision pre-release.
    op.create_table(
        "api_keys",
        sa.Column("key_hash", sa.String(length=64), nullable=False),
        sa.Column("key_id", sa.String(length=16), nullable=False),
        sa.Column("name", sa.Text(), nullable=True),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("revoked_at", sa.BigInteger(), nullable=True),
        sa.Column("rate_limit", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("key_hash", name=op.f("pk_api_keys")),
    )
    op.create_table(
        "api_secrets",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("secret", sa.Text(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_api_secrets")),
    )


def _downgrade_api() -> None:
    op.drop_table("api_secrets")
    op.drop_table("api_keys")


def _upgrade_primary() -> None:
    op.create_table(
        "primary_cursors",
        sa.Column("blockchain_id", sa.String(length=64), nullable=False),
        sa.Column("container_index", sa.BigInteger(), nullable=False),
        sa.Column("container_id", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("blockchain_id", name=op.f("pk_primary_cursors")),
    )
    op.create_table(
        "primary_txs",
        sa.Column("blockchain_id", sa.String(length=64), nullable=False),
        sa.Column("tx_hash", sa.String(length=64), nullable=False),
        sa.Column("tx_type", sa.String(length=64), nullable=False),
        sa.Column("block_number", sa.BigInteger(), nullable=False),
        sa.Column("block_hash", sa.String(length=64), nullable=False),
        sa.Column("block_timestamp", sa.BigInteger(), nullable=False),
        sa.Column("tx_index", sa.Integer(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("blockchain_id", "tx_hash", name=op.f("pk_primary_txs")),
    )
    with op.batch_alter_table("primary_txs", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_primary_txs_blockchain_id_block_timestamp"),
            ["blockchain_id", "block_timestamp", "block_number", "tx_index"],
            unique=False,
        )
    op.create_table(
        "primary_utxos",
        sa.Column("utxo_id", sa.String(length=64), nullable=False),
        sa.Column("created_on", sa.String(length=64), nullable=False),
        sa.Column("tx_hash", sa.String(length=64), nullable=False),
        sa.Column("output_index", sa.Integer(), nullable=False),
        sa.Column("asset_id", sa.String(length=64), nullable=False),
        sa.Column("amount", avadata.store.coltypes.U256Text(), nullable=False),
        sa.Column("addresses", sa.Text(), nullable=False),
        sa.Column("threshold", sa.Integer(), nullable=False),
        sa.Column("platform_locktime", sa.BigInteger(), nullable=False),
        sa.Column("stakeable_locktime", sa.BigInteger(), nullable=True),
        sa.Column("staked", sa.Boolean(), nullable=False),
        sa.Column("reward_type", sa.String(length=16), nullable=True),
        sa.Column("utxo_bytes", sa.Text(), nullable=False),
        sa.Column("block_number", sa.BigInteger(), nullable=False),
        sa.Column("block_timestamp", sa.BigInteger(), nullable=False),
        sa.Column("consumed_on", sa.String(length=64), nullable=True),
        sa.Column("consuming_tx_hash", sa.String(length=64), nullable=True),
        sa.Column("consuming_block_number", sa.BigInteger(), nullable=True),
        sa.Column("consuming_block_timestamp", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("utxo_id", name=op.f("pk_primary_utxos")),
    )
    op.create_table(
        "primary_address_txs",
        sa.Column("address", sa.String(length=120), nullable=False),
        sa.Column("blockchain_id", sa.String(length=64), nullable=False),
        sa.Column("block_timestamp", sa.BigInteger(), nullable=False),
        sa.Column("block_number", sa.BigInteger(), nullable=False),
        sa.Column("tx_index", sa.Integer(), nullable=False),
        sa.Column("tx_hash", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint(
            "address",
            "blockchain_id",
            "block_timestamp",
            "block_number",
            "tx_index",
            "tx_hash",
            name=op.f("pk_primary_address_txs"),
        ),
        sqlite_with_rowid=False,
    )
    op.create_table(
        "primary_address_utxos",
        sa.Column("address", sa.String(length=120), nullable=False),
        sa.Column("chain_id", sa.String(length=64), nullable=False),
        sa.Column("block_timestamp", sa.BigInteger(), nullable=False),
        sa.Column("utxo_id", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint(
            "address",
            "chain_id",
            "block_timestamp",
            "utxo_id",
            name=op.f("pk_primary_address_utxos"),
        ),
        sqlite_with_rowid=False,
    )


def _downgrade_primary() -> None:
    op.drop_table("primary_address_utxos")
    op.drop_table("primary_address_txs")
    op.drop_table("primary_utxos")
    with op.batch_alter_table("primary_txs", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_primary_txs_blockchain_id_block_timestamp"))
    op.drop_table("primary_txs")
    op.drop_table("primary_cursors")


def downgrade() -> None:
    _downgrade_primary()
    _downgrade_api()
    _downgrade_metrics()
    with op.batch_alter_table("evm_blocks", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_evm_blocks_chain_id_hash"))

    op.drop_table("evm_blocks")
    op.drop_table("cursors")
    op.drop_table("transfer_participants")
    op.drop_table("tokens")
    with op.batch_alter_table("token_transfers", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_token_transfers_chain_id_token"))

    op.drop_table("token_transfers")
    with op.batch_alter_table("nft_tokens", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_nft_tokens_index_status_next_attempt_at"))

    op.drop_table("nft_tokens")
    op.drop_table("native_balances")
    op.drop_table("internal_calls")
    op.drop_table("internal_call_participants")
    with op.batch_alter_table("evm_txs", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_evm_txs_chain_id_to_address"))
        batch_op.drop_index(batch_op.f("ix_evm_txs_chain_id_success"))
        batch_op.drop_index(batch_op.f("ix_evm_txs_chain_id_hash"))
        batch_op.drop_index(batch_op.f("ix_evm_txs_chain_id_from_address"))

    op.drop_table("evm_txs")
    op.drop_table("evm_logs")
    with op.batch_alter_table("erc721_owners", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_erc721_owners_chain_id_owner"))

    op.drop_table("erc721_owners")
    with op.batch_alter_table("erc20_balances", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_erc20_balances_chain_id_holder"))

    op.drop_table("erc20_balances")
    with op.batch_alter_table("erc1155_balances", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_erc1155_balances_chain_id_holder"))

    op.drop_table("erc1155_balances")
    with op.batch_alter_table("contracts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_contracts_chain_id_deployer"))

    op.drop_table("contracts")
    op.drop_table("chains")
