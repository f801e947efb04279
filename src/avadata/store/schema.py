"""Every table and index of the store, in one place (SQLAlchemy Core).

Stage: store. Nothing here looks at the dialect; the column types in `coltypes.py` do.
Migrations (`migrations/versions/`) are frozen copies of what this module declared at the
time; a test checks that upgrading an empty database gives exactly this metadata.

Invariants:
- every chain-scoped table carries `chain_id`, and natural keys are primary keys
  (positions: block_number, tx_index, log_index / trace_index), so a replayed insert is a no-op;
- timestamps are Unix seconds (UTC) in integer columns; amounts are `U256`/`I256`;
- addresses and hashes are lower-case hex text.

Link tables (`*_participants`) and balance histories are declared WITHOUT ROWID on SQLite:
their primary key is all they hold, so the table is the index (half the space, one lookup).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    false,
    text,
    true,
)

from avadata.store import dialect
from avadata.store.coltypes import I256, U256, Address, Hash

# WITHOUT ROWID on SQLite (see the module docstring); ignored by PostgreSQL.
_CLUSTERED: dict[str, Any] = {"sqlite_with_rowid": False}

# The large chain tables on PostgreSQL: a partition per chain, itself partitioned by block
# range (store/partitions.py makes the partitions; docs/store.md).
_BY_CHAIN = "LIST (chain_id)"

# Explicit constraint names so migrations can refer to them on both engines.
metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_name)s_%(column_1_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)


chains = Table(
    "chains",
    metadata,
    Column("chain_id", BigInteger, primary_key=True, autoincrement=False),
    Column("name", String(200)),
    # Avalanche ids (cb58), known for the C-chain and L1s when configured; None otherwise.
    Column("blockchain_id", String(64)),
    Column("subnet_id", String(64)),
    # mainnet or testnet, kept equal to network_id's (1 is mainnet, any other a test network):
    # the Metrics API's aggregates group by it.
    Column("network", String(16)),
    Column("rpc_url", Text),
    # False once any batch came from a node without a tracer: internal calls are then incomplete.
    Column("has_traces", Boolean(create_constraint=False), nullable=False, server_default=true()),
    # The chain's identity (revision 0012): its network (avalanchego's uint32 network ID), its
    # native token, explorer and VM, as the node or the operator's chains file gives them; None
    # where nobody said (the API then falls back to the settings' native token).
    Column("network_id", BigInteger),
    Column("vm_name", String(64)),
    Column("token_name", String(200)),
    Column("token_symbol", String(32)),
    Column("token_decimals", Integer),
    Column("token_logo", Text),
    Column("explorer_url", Text),
    CheckConstraint("network IN ('mainnet', 'testnet')", name="network"),
)

# The networks this store holds data of (revision 0012); `has_primary` marks the one whose
# primary network (P, X and C atomic) the primary tables hold: a store indexes one node's.
networks = Table(
    "networks",
    metadata,
    Column("network_id", BigInteger, primary_key=True, autoincrement=False),
    Column("name", String(64), nullable=False),
    Column("hrp", String(32), nullable=False),
    Column("has_primary", Boolean(create_constraint=False), nullable=False, server_default=false()),
)

cursors = Table(
    "cursors",
    metadata,
    Column("chain_id", BigInteger, ForeignKey("chains.chain_id"), nullable=False),
    # What was indexed: "evm" for the EVM pipeline; other pipelines pick their own name.
    Column("source", String(64), nullable=False),
    Column("block_number", BigInteger, nullable=False),
    Column("block_hash", Hash(), nullable=False),
    PrimaryKeyConstraint("chain_id", "source"),
)

evm_blocks = Table(
    "evm_blocks",
    metadata,
    Column("chain_id", BigInteger, ForeignKey("chains.chain_id"), nullable=False),
    Column("number", BigInteger, nullable=False),
    Column("hash", Hash(), nullable=False),
    Column("parent_hash", Hash(), nullable=False),
    Column("timestamp", BigInteger, nullable=False),
    Column("gas_used", BigInteger, nullable=False),
    Column("gas_limit", BigInteger, nullable=False),
    Column("base_fee", U256()),
    Column("tx_count", Integer, nullable=False),
    Column("miner", Address(), nullable=False),
    Column("fees_spent", U256(), nullable=False),
    # Transactions in this block and every earlier indexed block of the chain.
    Column("cumulative_txs", BigInteger, nullable=False),
    # The header's timeMilliseconds (sub-second blocks, ACP-226); NULL where it has none.
    Column("time_ms", BigInteger),
    PrimaryKeyConstraint("chain_id", "number"),
    Index(None, "chain_id", "hash"),
)

evm_txs = Table(
    "evm_txs",
    metadata,
    Column("chain_id", BigInteger, nullable=False),
    Column("block_number", BigInteger, nullable=False),
    Column("tx_index", Integer, nullable=False),
    Column("block_hash", Hash(), nullable=False),
    Column("block_timestamp", BigInteger, nullable=False),
    Column("hash", Hash(), nullable=False),
    Column("from_address", Address(), nullable=False),
    Column("to_address", Address()),
    Column("value", U256(), nullable=False),
    Column("gas_limit", BigInteger, nullable=False),
    Column("gas_price", U256(), nullable=False),
    Column("gas_used", BigInteger, nullable=False),
    # EIP-2681 caps a nonce at 2**64 - 1, past a signed BIGINT.
    Column("nonce", U256(), nullable=False),
    Column("tx_type", Integer, nullable=False),
    Column("success", Boolean(create_constraint=False), nullable=False),
    Column("call_type", String(32), nullable=False),
    Column("method_hash", String(10), nullable=False),
    Column("method_name", Text),
    Column("contract_address", Address()),
    PrimaryKeyConstraint("chain_id", "block_number", "tx_index"),
    # getTransaction by hash: (chain_id, hash) on SQLite, a hash index on PostgreSQL (0026).
    *dialect.hash_lookup("evm_txs", "chain_id", "hash"),
    # Newest-first listings use the primary key backwards, the successful ones too (skipping
    # the few failed); the failed ones have a partial index of their own, so the other
    # transactions, nearly all of them, enter no third index (docs/store.md).
    Index(
        "ix_evm_txs_failed",
        "chain_id",
        "block_number",
        "tx_index",
        sqlite_where=text("success = 0"),
        postgresql_where=text("NOT success"),
    ),
    # Per-address listings (sent / received), newest first.
    Index(None, "chain_id", "from_address", "block_number", "tx_index"),
    Index(None, "chain_id", "to_address", "block_number", "tx_index"),
    postgresql_partition_by=_BY_CHAIN,
)

# What only getTransaction shows of a transaction, apart from evm_txs so that the lists,
# which read whole evm_txs rows, do not carry call data (a creation's is the contract's code).
evm_tx_inputs = Table(
    "evm_tx_inputs",
    metadata,
    Column("chain_id", BigInteger, nullable=False),
    Column("block_number", BigInteger, nullable=False),
    Column("tx_index", Integer, nullable=False),
    Column("input", Text, nullable=False),
    Column("max_fee_per_gas", U256()),
    Column("max_priority_fee_per_gas", U256()),
    PrimaryKeyConstraint("chain_id", "block_number", "tx_index"),
    postgresql_partition_by=_BY_CHAIN,
)

evm_logs = Table(
    "evm_logs",
    metadata,
    Column("chain_id", BigInteger, nullable=False),
    Column("block_number", BigInteger, nullable=False),
    Column("log_index", Integer, nullable=False),
    Column("tx_index", Integer, nullable=False),
    Column("tx_hash", Hash(), nullable=False),
    Column("address", Address(), nullable=False),
    # An EVM log has at most four topics: columns, not JSON, so both engines can filter them.
    Column("topic0", Hash()),
    Column("topic1", Hash()),
    Column("topic2", Hash()),
    Column("topic3", Hash()),
    Column("data", Text, nullable=False),
    PrimaryKeyConstraint("chain_id", "block_number", "log_index"),
    postgresql_partition_by=_BY_CHAIN,
)

token_transfers = Table(
    "token_transfers",
    metadata,
    Column("chain_id", BigInteger, nullable=False),
    Column("block_number", BigInteger, nullable=False),
    Column("log_index", Integer, nullable=False),
    # Position inside an ERC-1155 TransferBatch; 0 for every other transfer.
    Column("batch_index", Integer, nullable=False),
    Column("tx_index", Integer, nullable=False),
    Column("tx_hash", Hash(), nullable=False),
    Column("block_hash", Hash(), nullable=False),
    Column("block_timestamp", BigInteger, nullable=False),
    Column("token", Address(), nullable=False),
    Column("standard", String(16), nullable=False),
    Column("from_address", Address(), nullable=False),
    Column("to_address", Address(), nullable=False),
    Column("token_id", U256()),
    Column("value", U256(), nullable=False),
    Column("operator", Address()),
    PrimaryKeyConstraint("chain_id", "block_number", "log_index", "batch_index"),
    Index(None, "chain_id", "token", "block_number", "log_index", "batch_index"),
    postgresql_partition_by=_BY_CHAIN,
)

# One row per distinct from/to of a transfer: "transfers of address A of standard S, newest
# first" is one range scan of this primary key, then point lookups into token_transfers.
transfer_participants = Table(
    "transfer_participants",
    metadata,
    Column("chain_id", BigInteger, nullable=False),
    Column("address", Address(), nullable=False),
    Column("standard", String(16), nullable=False),
    Column("block_number", BigInteger, nullable=False),
    Column("log_index", Integer, nullable=False),
    Column("batch_index", Integer, nullable=False),
    PrimaryKeyConstraint(
        "chain_id", "address", "standard", "block_number", "log_index", "batch_index"
    ),
    sqlite_with_rowid=False,
    postgresql_partition_by=_BY_CHAIN,
)

internal_calls = Table(
    "internal_calls",
    metadata,
    Column("chain_id", BigInteger, nullable=False),
    Column("block_number", BigInteger, nullable=False),
    Column("tx_index", Integer, nullable=False),
    Column("trace_index", Integer, nullable=False),
    Column("block_hash", Hash(), nullable=False),
    Column("block_timestamp", BigInteger, nullable=False),
    Column("tx_hash", Hash(), nullable=False),
    Column("parent_index", Integer),
    Column("depth", Integer, nullable=False),
    Column("call_type", String(16), nullable=False),
    Column("from_address", Address(), nullable=False),
    Column("to_address", Address()),
    Column("value", U256(), nullable=False),
    Column("gas", BigInteger, nullable=False),
    Column("gas_used", BigInteger, nullable=False),
    Column("reverted", Boolean(create_constraint=False), nullable=False),
    Column("error", Text),
    PrimaryKeyConstraint("chain_id", "block_number", "tx_index", "trace_index"),
    postgresql_partition_by=_BY_CHAIN,
)

# Only the frames the Data API lists as internal transactions (see rows.is_listed_call).
internal_call_participants = Table(
    "internal_call_participants",
    metadata,
    Column("chain_id", BigInteger, nullable=False),
    Column("address", Address(), nullable=False),
    Column("block_number", BigInteger, nullable=False),
    Column("tx_index", Integer, nullable=False),
    Column("trace_index", Integer, nullable=False),
    PrimaryKeyConstraint("chain_id", "address", "block_number", "tx_index", "trace_index"),
    sqlite_with_rowid=False,
    postgresql_partition_by=_BY_CHAIN,
)

contracts = Table(
    "contracts",
    metadata,
    Column("chain_id", BigInteger, nullable=False),
    Column("address", Address(), nullable=False),
    Column("block_number", BigInteger, nullable=False),
    Column("block_timestamp", BigInteger, nullable=False),
    Column("tx_index", Integer, nullable=False),
    Column("trace_index", Integer, nullable=False),
    Column("tx_hash", Hash(), nullable=False),
    Column("deployer", Address(), nullable=False),
    Column("deployer_contract", Address()),
    Column("creation_type", String(16), nullable=False),
    PrimaryKeyConstraint("chain_id", "address"),
    Index(None, "chain_id", "deployer", "block_number", "tx_index", "trace_index"),
)

tokens = Table(
    "tokens",
    metadata,
    Column("chain_id", BigInteger, nullable=False),
    Column("address", Address(), nullable=False),
    Column("standard", String(16), nullable=False),
    # None when the eth_call failed: nothing is invented.
    Column("name", Text),
    Column("symbol", Text),
    Column("decimals", Integer),
    PrimaryKeyConstraint("chain_id", "address"),
)

# Balance after `block_number`, one row per block in which the balance was touched.
# The balance at block B is the row with the greatest block_number <= B (0 when none).
erc20_balances = Table(
    "erc20_balances",
    metadata,
    Column("chain_id", BigInteger, nullable=False),
    Column("token", Address(), nullable=False),
    Column("holder", Address(), nullable=False),
    Column("block_number", BigInteger, nullable=False),
    Column("balance", I256(), nullable=False),
    PrimaryKeyConstraint("chain_id", "token", "holder", "block_number"),
    # "Every token an address holds" starts here.
    Index(None, "chain_id", "holder", "token", "block_number"),
    sqlite_with_rowid=False,
)

erc1155_balances = Table(
    "erc1155_balances",
    metadata,
    Column("chain_id", BigInteger, nullable=False),
    Column("token", Address(), nullable=False),
    Column("token_id", U256(), nullable=False),
    Column("holder", Address(), nullable=False),
    Column("block_number", BigInteger, nullable=False),
    Column("balance", I256(), nullable=False),
    PrimaryKeyConstraint("chain_id", "token", "token_id", "holder", "block_number"),
    Index(None, "chain_id", "holder", "token", "token_id", "block_number"),
    sqlite_with_rowid=False,
)

# Current owner of each ERC-721 token, with the position of the transfer that set it: an
# update applies only from a later position, so replaying an older chunk changes nothing.
# A burn keeps the row with the zero address as owner (the position still guards).
erc721_owners = Table(
    "erc721_owners",
    metadata,
    Column("chain_id", BigInteger, nullable=False),
    Column("token", Address(), nullable=False),
    Column("token_id", U256(), nullable=False),
    Column("owner", Address(), nullable=False),
    Column("block_number", BigInteger, nullable=False),
    Column("log_index", Integer, nullable=False),
    Column("batch_index", Integer, nullable=False),
    PrimaryKeyConstraint("chain_id", "token", "token_id"),
    Index(None, "chain_id", "owner", "token", "token_id"),
)

# The NFT metadata worker's queue and result: one row per ERC-721/1155 token id ever seen.
nft_tokens = Table(
    "nft_tokens",
    metadata,
    Column("chain_id", BigInteger, nullable=False),
    Column("token", Address(), nullable=False),
    Column("token_id", U256(), nullable=False),
    Column("standard", String(16), nullable=False),
    Column("token_uri", Text),
    # pending -> indexed | failed (retried at next_attempt_at) | unindexable
    Column("index_status", String(16), nullable=False, server_default=text("'pending'")),
    Column("name", Text),
    Column("description", Text),
    Column("image_uri", Text),
    Column("external_url", Text),
    Column("metadata_json", Text),
    Column("last_updated", BigInteger),
    Column("attempts", Integer, nullable=False, server_default=text("0")),
    Column("next_attempt_at", BigInteger, nullable=False, server_default=text("0")),
    PrimaryKeyConstraint("chain_id", "token", "token_id"),
    Index(None, "index_status", "next_attempt_at"),
)

# Native balance after `block_number`, from eth_getBalance; absent means unknown, not zero.
native_balances = Table(
    "native_balances",
    metadata,
    Column("chain_id", BigInteger, nullable=False),
    Column("address", Address(), nullable=False),
    Column("block_number", BigInteger, nullable=False),
    Column("balance", U256(), nullable=False),
    PrimaryKeyConstraint("chain_id", "address", "block_number"),
    sqlite_with_rowid=False,
)

# --- Metrics rollups (avadata.metrics; written by store.metrics.rollup_writer inside the
# writer's transaction, rebuilt by `avadata metrics rebuild`). Interval codes: h, d, w, m.

# One row per block seen by the rollup: its insert decides whether the block's additive
# contributions are new (a replayed block inserts nothing, so adds nothing).
metric_blocks = Table(
    "metric_blocks",
    metadata,
    Column("chain_id", BigInteger, nullable=False),
    Column("number", BigInteger, nullable=False),
    Column("timestamp", BigInteger, nullable=False),
    Column("tx_count", Integer, nullable=False),
    Column("gas_used", BigInteger, nullable=False),
    # The block's time in milliseconds where its header says (maxTps/maxGps samples use it).
    Column("time_ms", BigInteger),
    PrimaryKeyConstraint("chain_id", "number"),
    sqlite_with_rowid=False,
)

# Additive sums per chain and bucket (aggregates over chains add these up at query time).
metric_sums = Table(
    "metric_sums",
    metadata,
    Column("chain_id", BigInteger, nullable=False),
    Column("interval", String(1), nullable=False),
    Column("bucket", BigInteger, nullable=False),
    Column("blocks", BigInteger, nullable=False),
    Column("txs", BigInteger, nullable=False),
    Column("gas_used", BigInteger, nullable=False),
    Column("fees", U256(), nullable=False),
    Column("gas_price_sum", U256(), nullable=False),
    Column("gas_price_max", U256(), nullable=False),
    Column("contracts", BigInteger, nullable=False),
    Column("first_ts", BigInteger),
    Column("last_ts", BigInteger),
    # Largest per-block sample (txs or gas over the time since the previous block).
    Column("max_tps", Float(precision=53), nullable=False),
    Column("max_gps", Float(precision=53), nullable=False),
    # timeMilliseconds of the bucket's first and last block (sub-second blocks, ACP-226); NULL
    # where that block's header has none, or it was rolled up before revision 0023.
    Column("first_ms", BigInteger),
    Column("last_ms", BigInteger),
    # Running totals of the chain's buckets of this interval up to and including this one:
    # a rolling window's sum is the newest bucket's total minus the one before the window.
    Column("run_txs", BigInteger, nullable=False, server_default=text("0")),
    Column("run_gas_used", BigInteger, nullable=False, server_default=text("0")),
    Column("run_fees", U256(), nullable=False, server_default=text("0")),
    Column("run_gas_price_sum", U256(), nullable=False, server_default=text("0")),
    Column("run_contracts", BigInteger, nullable=False, server_default=text("0")),
    PrimaryKeyConstraint("chain_id", "interval", "bucket"),
)

# Distinct-count membership: scope is a chain id in decimal, or mainnet / testnet / total;
# kind a = active address, s = sender, d = deployer. Inserted or ignored, so exact and
# replay-safe for any interval and across chains.
metric_members = Table(
    "metric_members",
    metadata,
    Column("scope", String(24), nullable=False),
    Column("kind", String(1), nullable=False),
    Column("interval", String(1), nullable=False),
    Column("bucket", BigInteger, nullable=False),
    Column("address", Address(), nullable=False),
    PrimaryKeyConstraint("scope", "kind", "interval", "bucket", "address"),
    sqlite_with_rowid=False,
)

# Counts of metric_members rows per bucket (kinds a, s, d), and of first sightings per day
# (kinds A = addresses, D = deployers): raised only by rows that were new.
metric_counts = Table(
    "metric_counts",
    metadata,
    Column("scope", String(24), nullable=False),
    Column("kind", String(1), nullable=False),
    Column("interval", String(1), nullable=False),
    Column("bucket", BigInteger, nullable=False),
    Column("count", BigInteger, nullable=False),
    PrimaryKeyConstraint("scope", "kind", "interval", "bucket"),
)

# The day an address (A) or deployer (D) was first seen in a scope: cumulative counts.
metric_first_seen = Table(
    "metric_first_seen",
    metadata,
    Column("scope", String(24), nullable=False),
    Column("kind", String(1), nullable=False),
    Column("address", Address(), nullable=False),
    Column("first_day", BigInteger, nullable=False),
    PrimaryKeyConstraint("scope", "kind", "address"),
    sqlite_with_rowid=False,
)

# The last bucket (hour; day for deployers) each address was active in a single-chain scope.
# A chain's blocks are written in order, so one row per address decides whether an hour, day,
# week or month is new for it; no row means never seen (a first sighting).
metric_last_seen = Table(
    "metric_last_seen",
    metadata,
    Column("scope", String(24), nullable=False),
    Column("kind", String(1), nullable=False),
    Column("address", Address(), nullable=False),
    Column("last_bucket", BigInteger, nullable=False),
    PrimaryKeyConstraint("scope", "kind", "address"),
    # Rolling windows count the addresses active since a bucket (api/metrics/rolling.py): a
    # range of this index instead of a scan of every address the chain ever saw.
    Index(None, "scope", "kind", "last_bucket"),
    sqlite_with_rowid=False,
)

# Aggregate membership scopes that are materialised (see avadata.store.metrics.scope_rows): the
# key is derived from the set of chains, listed here for the record.
metric_scopes = Table(
    "metric_scopes",
    metadata,
    Column("scope", String(24), nullable=False),
    Column("chain_ids", Text, nullable=False),
    PrimaryKeyConstraint("scope"),
)

# --- The P-chain's metric rollups (store/metrics/pchain_writer.py, written inside the P-chain
# writer's transaction; docs/metrics.md). Only days the P-chain's time has passed are final;
# the newest day is read from the marks and accounts at request time.

# How far the P-chain rollup has gone: the newest rolled-up P block's height, the newest P tx
# time (the P-chain's "now", as store/primary/queries/validators.p_chain_now) and the last
# day whose staking values are closed into metric_staking_days.
metric_p_clock = Table(
    "metric_p_clock",
    metadata,
    Column("chain", String(8), nullable=False),
    Column("height", BigInteger, nullable=False),
    Column("now", BigInteger, nullable=False),
    Column("closed_day", BigInteger),
    PrimaryKeyConstraint("chain"),
)

# Staking boundaries not folded into a closed day yet: a validation period's start (edge s,
# +weight) and end (edge e, -weight; moved to its removal's time when removed earlier).
metric_staking_marks = Table(
    "metric_staking_marks",
    metadata,
    Column("tx_hash", String(64), nullable=False),
    Column("edge", String(1), nullable=False),
    Column("subnet_id", String(64), nullable=False),
    Column("kind", String(20), nullable=False),
    Column("at", BigInteger, nullable=False),
    Column("weight", U256(), nullable=False),
    PrimaryKeyConstraint("tx_hash", "edge"),
    Index(None, "subnet_id", "kind", "at"),
    Index(None, "at", "tx_hash"),
)

# Stakers (count, weight) of a subnet's kind at each closed day's last second, dense from the
# day of its first period's start.
metric_staking_days = Table(
    "metric_staking_days",
    metadata,
    Column("subnet_id", String(64), nullable=False),
    Column("kind", String(20), nullable=False),
    Column("day", BigInteger, nullable=False),
    Column("count", BigInteger, nullable=False),
    Column("weight", U256(), nullable=False),
    PrimaryKeyConstraint("subnet_id", "kind", "day"),
)

# Each L1 validation's fee replay (metrics/l1_fees.py) as far as the rollup has gone: its
# balance after paying up to `since` (an event's time or a day boundary; NULL before its first
# event), and the time of its first tx (where its series start).
metric_l1_accounts = Table(
    "metric_l1_accounts",
    metadata,
    Column("validation_id", String(64), nullable=False),
    Column("subnet_id", String(64)),
    Column("node_id", String(64)),
    Column("first_ts", BigInteger, nullable=False),
    Column("balance", U256(), nullable=False),
    Column("since", BigInteger),
    PrimaryKeyConstraint("validation_id"),
)

# nAVAX each L1 validation paid per UTC day, and its balance at the day's end (its last event
# or the day boundary): a day's row exists when the validation paid or had a tx that day.
metric_l1_fee_days = Table(
    "metric_l1_fee_days",
    metadata,
    Column("validation_id", String(64), nullable=False),
    Column("day", BigInteger, nullable=False),
    Column("fee", BigInteger, nullable=False),
    Column("balance", U256(), nullable=False),
    PrimaryKeyConstraint("validation_id", "day"),
)

# Rows each writer committed, per source (an EVM chain ID in decimal, or a primary chain's
# blockchain ID) and table: raised in the writer's transaction, read by GET /metrics in any
# process (the indexer is not the API's process).
metric_rows_written = Table(
    "metric_rows_written",
    metadata,
    Column("source", String(64), nullable=False),
    Column("table_name", String(64), nullable=False),
    Column("rows", BigInteger, nullable=False),
    PrimaryKeyConstraint("source", "table_name"),
)

# Metrics API page tokens: a UUID names the query and where the next page starts, so any API
# process can continue a page; valid 24 h from created_at.
metric_page_tokens = Table(
    "metric_page_tokens",
    metadata,
    Column("token", String(36), nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("query", Text, nullable=False),
    PrimaryKeyConstraint("token"),
    Index(None, "created_at"),
)

# Data API keys (`avadata keys`): only a SHA-256 of each key is kept; the key is shown once.
api_keys = Table(
    "api_keys",
    metadata,
    Column("key_hash", String(64), nullable=False),
    # The public part of the key, shown by `keys list` and used by `keys revoke`.
    Column("key_id", String(16), nullable=False),
    Column("name", Text),
    Column("created_at", BigInteger, nullable=False),
    Column("revoked_at", BigInteger),
    # Requests per minute for this key; None: the server's rate_limit_keyed setting.
    Column("rate_limit", Integer),
    PrimaryKeyConstraint("key_hash"),
)

# Server secrets shared by every API process (e.g. "page_token": the page-token HMAC key).
api_secrets = Table(
    "api_secrets",
    metadata,
    Column("name", String(64), nullable=False),
    Column("secret", Text, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("name"),
)

# Webhooks (api/webhooks/ writes them, delivery/ sends their events). Each belongs to the API
# key that created it (`owner` = api_keys.key_id): another key neither sees nor changes it.
webhooks = Table(
    "webhooks",
    metadata,
    Column("webhook_id", String(36), nullable=False),
    Column("owner", String(16), nullable=False),
    Column("event_type", String(64), nullable=False),
    Column("chain_id", BigInteger, nullable=False),
    Column("url", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("description", Text, nullable=False),
    Column("status", String(16), nullable=False),
    Column("created_at_ms", BigInteger, nullable=False),
    Column("include_internal_txs", Boolean(create_constraint=False), nullable=False),
    Column("include_logs", Boolean(create_constraint=False), nullable=False),
    # JSON array of topic0 hashes narrowing the logs reported; "[]": every log.
    Column("event_signatures", Text, nullable=False),
    # The delivery cursor: the (block, tx index) of the last event a receiver acknowledged
    # with a 2xx; moved only after that answer, in the store, so a crash loses no event.
    Column("cursor_block", BigInteger, nullable=False),
    Column("cursor_tx", Integer, nullable=False),
    PrimaryKeyConstraint("webhook_id"),
    Index(None, "owner", "created_at_ms", "webhook_id"),
)

webhook_addresses = Table(
    "webhook_addresses",
    metadata,
    Column("webhook_id", String(36), nullable=False),
    Column("address", Address(), nullable=False),
    PrimaryKeyConstraint("webhook_id", "address"),
    sqlite_with_rowid=False,
)

# The signing secret of each API key's webhooks (one per account, as the hosted service).
webhook_secrets = Table(
    "webhook_secrets",
    metadata,
    Column("owner", String(16), nullable=False),
    Column("secret", String(64), nullable=False),
    Column("created_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("owner"),
)

# Transaction exports (POST /v1/operations/transactions:export; exports/ writes the files).
# Each belongs to the API key that created it (`owner` = api_keys.key_id), as webhooks do.
export_operations = Table(
    "export_operations",
    metadata,
    Column("operation_id", String(36), nullable=False),
    Column("owner", String(16), nullable=False),
    Column("created_at_ms", BigInteger, nullable=False),
    Column("updated_at_ms", BigInteger, nullable=False),
    Column("operation_type", String(64), nullable=False),
    # RUNNING until the file is complete (COMPLETED) or cannot be written (FAILED).
    Column("status", String(32), nullable=False),
    # What to export, fixed at creation (JSON: format, parts with their bounds; exports/plan.py).
    Column("plan", Text, nullable=False),
    # Where the export stands (JSON: part, position after the last row written), the rows
    # written and the file's durable mark (CSV: its size in bytes; Parquet: its parts), all
    # moved together after the file is flushed: a restart resumes exactly there.
    Column("position", Text, nullable=False),
    Column("rows_written", BigInteger, nullable=False),
    Column("file_mark", BigInteger, nullable=False),
    # FAILED: the spec's OperationStatusCode and what went wrong.
    Column("code", String(32)),
    Column("message", Text),
    PrimaryKeyConstraint("operation_id"),
    Index(None, "status", "created_at_ms"),
)

# What a primary-network webhook watches (primary_network_address_activity: P/X addresses;
# validator_activity: node or subnet IDs): its network, the chain its cursor walks (P or X)
# and the request's metadata (JSON, answered as given). EVM webhooks have no row here.
webhook_scopes = Table(
    "webhook_scopes",
    metadata,
    Column("webhook_id", String(36), nullable=False),
    Column("network", String(32), nullable=False),
    Column("chain", String(8), nullable=False),
    Column("metadata", Text, nullable=False),
    PrimaryKeyConstraint("webhook_id"),
)

# Who delivers the webhooks (`serve` and `index` both host a delivery worker): the one holder
# of a named lease until it expires (epoch ms), taken and renewed by one conditional UPDATE
# (store/webhooks/lease.py), so two processes never deliver at once.
webhook_leases = Table(
    "webhook_leases",
    metadata,
    Column("name", String(64), nullable=False),
    Column("holder", String(128), nullable=False),
    Column("expires_at_ms", BigInteger, nullable=False),
    PrimaryKeyConstraint("name"),
)

# Primary network (P, X and C atomic), fed from the Index API by indexer/primary/.
# Keyed by the chain's cb58 blockchain ID: these chains have no EVM chain ID for `cursors`.
primary_cursors = Table(
    "primary_cursors",
    metadata,
    Column("blockchain_id", String(64), nullable=False),
    # The last Index API container whose rows are all committed, and its ID.
    Column("container_index", BigInteger, nullable=False),
    Column("container_id", String(64), nullable=False),
    PrimaryKeyConstraint("blockchain_id"),
)

# One row per transaction; `body` is its JSON-ready Data API fields (codec render + UTXOs).
primary_txs = Table(
    "primary_txs",
    metadata,
    Column("blockchain_id", String(64), nullable=False),
    Column("tx_hash", String(64), nullable=False),
    Column("tx_type", String(64), nullable=False),
    Column("block_number", BigInteger, nullable=False),
    Column("block_hash", String(64), nullable=False),
    Column("block_timestamp", BigInteger, nullable=False),
    # Position inside the block: keyset order is (timestamp, block, position).
    Column("tx_index", Integer, nullable=False),
    Column("body", Text, nullable=False),
    PrimaryKeyConstraint("blockchain_id", "tx_hash"),
    Index(None, "blockchain_id", "block_timestamp", "block_number", "tx_index"),
)

# The UTXO set: created on one chain, maybe consumed on another (imports).
primary_utxos = Table(
    "primary_utxos",
    metadata,
    Column("utxo_id", String(64), nullable=False),
    Column("created_on", String(64), nullable=False),
    Column("tx_hash", String(64), nullable=False),
    Column("output_index", Integer, nullable=False),
    Column("asset_id", String(64), nullable=False),
    Column("amount", U256(), nullable=False),
    Column("addresses", Text, nullable=False),
    Column("threshold", Integer, nullable=False),
    Column("platform_locktime", BigInteger, nullable=False),
    Column("stakeable_locktime", BigInteger),
    Column("staked", Boolean(create_constraint=False), nullable=False),
    Column("reward_type", String(16)),
    Column("utxo_bytes", Text, nullable=False),
    Column("block_number", BigInteger, nullable=False),
    Column("block_timestamp", BigInteger, nullable=False),
    Column("consumed_on", String(64)),
    Column("consuming_tx_hash", String(64)),
    Column("consuming_block_number", BigInteger),
    Column("consuming_block_timestamp", BigInteger),
    PrimaryKeyConstraint("utxo_id"),
    # A transaction listing shows each tx's emitted and consumed UTXOs: without these, every
    # page scanned the whole UTXO set (0.3 s a page at 300,000 UTXOs, `avadata bench primary`).
    Index(None, "tx_hash", "output_index"),
    Index(None, "consuming_tx_hash", "utxo_id"),
    # getAvaxSupply's totalLocked: the few UTXOs with a locktime, without scanning the rest.
    Index(
        "ix_primary_utxos_platform_locked",
        "platform_locktime",
        sqlite_where=text("platform_locktime > 0"),
        postgresql_where=text("platform_locktime > 0"),
    ),
    Index(
        "ix_primary_utxos_stakeable_locked",
        "stakeable_locktime",
        sqlite_where=text("stakeable_locktime > 0"),
        postgresql_where=text("stakeable_locktime > 0"),
    ),
)

# Address links for keyset listing; the key is all they hold.
primary_address_txs = Table(
    "primary_address_txs",
    metadata,
    Column("address", String(120), nullable=False),
    Column("blockchain_id", String(64), nullable=False),
    Column("block_timestamp", BigInteger, nullable=False),
    Column("block_number", BigInteger, nullable=False),
    Column("tx_index", Integer, nullable=False),
    Column("tx_hash", String(64), nullable=False),
    PrimaryKeyConstraint(
        "address", "blockchain_id", "block_timestamp", "block_number", "tx_index", "tx_hash"
    ),
    sqlite_with_rowid=False,
)

# P- and X-chain blocks and X-chain vertices (blockchain_id "X/vtx") as the block listings
# serve them; the C-chain's blocks are the EVM wing's. `idx` is the Index API position.
primary_blocks = Table(
    "primary_blocks",
    metadata,
    Column("blockchain_id", String(64), nullable=False),
    Column("block_id", String(64), nullable=False),
    Column("height", BigInteger, nullable=False),
    Column("idx", BigInteger, nullable=False),
    Column("block_timestamp", BigInteger, nullable=False),
    Column("parent_ids", Text, nullable=False),  # JSON list of CB58
    Column("block_type", String(64), nullable=False),
    Column("size", Integer, nullable=False),
    Column("tx_hashes", Text, nullable=False),  # JSON list of CB58, in block order
    Column("proposer_parent_id", String(64)),
    Column("proposer_p_height", BigInteger),
    Column("proposer_timestamp", BigInteger),
    Column("proposer_node_id", String(64)),
    PrimaryKeyConstraint("blockchain_id", "block_id"),
    Index(None, "blockchain_id", "idx"),
    Index(None, "blockchain_id", "height"),
    Index(None, "blockchain_id", "proposer_node_id", "idx"),
)

# X-chain asset links for listAssetTransactions: each tx that creates, emits or consumes the
# asset (keyset order as primary_address_txs).
primary_asset_txs = Table(
    "primary_asset_txs",
    metadata,
    Column("asset_id", String(64), nullable=False),
    Column("blockchain_id", String(64), nullable=False),
    Column("block_timestamp", BigInteger, nullable=False),
    Column("block_number", BigInteger, nullable=False),
    Column("tx_index", Integer, nullable=False),
    Column("tx_hash", String(64), nullable=False),
    PrimaryKeyConstraint(
        "asset_id", "blockchain_id", "block_timestamp", "block_number", "tx_index", "tx_hash"
    ),
    sqlite_with_rowid=False,
)

primary_address_utxos = Table(
    "primary_address_utxos",
    metadata,
    Column("address", String(120), nullable=False),
    Column("chain_id", String(64), nullable=False),
    Column("block_timestamp", BigInteger, nullable=False),
    Column("utxo_id", String(64), nullable=False),
    PrimaryKeyConstraint("address", "chain_id", "block_timestamp", "utxo_id"),
    sqlite_with_rowid=False,
)

# Validation periods (primary-network validators and delegators, permissioned subnet
# validators), one per staking tx; end-of-period facts fill in when the P-chain rewards or
# removes it.
primary_validations = Table(
    "primary_validations",
    metadata,
    Column("tx_hash", String(64), nullable=False),
    Column("kind", String(20), nullable=False),  # validator, delegator, subnet_validator
    Column("node_id", String(64), nullable=False),
    Column("subnet_id", String(64), nullable=False),
    Column("amount_staked", U256(), nullable=False),
    Column("delegation_fee", Integer),  # validators: parts per million
    Column("start_ts", BigInteger, nullable=False),
    Column("end_ts", BigInteger, nullable=False),
    Column("bls_public_key", Text),
    Column("bls_pop", Text),
    Column("reward_addresses", Text, nullable=False),  # JSON list of bech32
    Column("block_timestamp", BigInteger, nullable=False),
    Column("reward_tx_hash", String(64)),
    Column("reward_timestamp", BigInteger),
    Column("validation_reward", U256()),
    Column("delegation_reward", U256()),
    Column("remove_tx_hash", String(64)),
    Column("remove_timestamp", BigInteger),
    # Whether the RewardValidatorTx was committed (paid) or aborted; NULL until it ends.
    Column("reward_committed", Boolean(create_constraint=False)),
    # Primary stakers: the reward formula's potential reward, with the supply replayed from
    # the staking history (decode/primary/supply.py); NULL until the node's supply anchors it.
    Column("formula_reward", U256()),
    PrimaryKeyConstraint("tx_hash"),
    Index(None, "node_id", "start_ts", "tx_hash"),
    # listValidators' and listDelegators' default order (revision 0019)
    Index(None, "block_timestamp", "tx_hash"),
    # listValidators by timeRemaining (the end's order) and its bounds: a page walks the
    # ends from its position instead of sorting every period (revision 0022)
    Index(None, "end_ts", "tx_hash"),
)

# The P-chain supply the node reported (platform.getCurrentSupply) at a height, and the
# supply before the first indexed block that the replay found to reach it.
primary_supply = Table(
    "primary_supply",
    metadata,
    Column("subnet_id", String(64), nullable=False),
    Column("supply", U256(), nullable=False),
    Column("height", BigInteger, nullable=False),
    Column("start_supply", U256()),
    PrimaryKeyConstraint("subnet_id"),
)

# What only the node knows about current stakers (platform.getCurrentValidators), replaced
# after each P-chain pass: potential rewards, commission accrued, uptime, connection.
primary_staker_live = Table(
    "primary_staker_live",
    metadata,
    Column("tx_hash", String(64), nullable=False),
    Column("potential_reward", U256(), nullable=False),
    Column("delegatee_reward", U256(), nullable=False),
    Column("uptime", Float, nullable=False),
    Column("connected", Boolean(create_constraint=False), nullable=False),
    PrimaryKeyConstraint("tx_hash"),
)

# How many times each node snapshot was taken ("stakers": primary_staker_live), raised in the
# snapshot's transaction: what the API keeps a ranking by uptime per (revision 0022).
primary_snapshot_counts = Table(
    "primary_snapshot_counts",
    metadata,
    Column("name", String(32), nullable=False),
    Column("taken", BigInteger, nullable=False),
    PrimaryKeyConstraint("name"),
)

# X-chain assets, one per CreateAssetTx (asset ID = that tx's ID). AVAX is not here: its
# CreateAssetTx is in the X-chain genesis, which no index holds.
primary_assets = Table(
    "primary_assets",
    metadata,
    Column("asset_id", String(64), nullable=False),
    Column("blockchain_id", String(64), nullable=False),
    # The codec caps neither length; avalanchego's limits (128 / 4) are not ours to enforce.
    Column("name", Text, nullable=False),
    Column("symbol", Text, nullable=False),
    Column("denomination", Integer, nullable=False),
    Column("asset_type", String(16), nullable=False),  # secp256k1 or nft
    Column("cap", String(16), nullable=False),  # fixed or variable (has a mint output)
    Column("created_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("asset_id"),
)

# L1 validators as their ConvertSubnetToL1Tx / RegisterL1ValidatorTx defined them, kept after
# removal (later txs name only the validation ID), and the P-chain txs of each validation.
primary_l1_validators = Table(
    "primary_l1_validators",
    metadata,
    Column("validation_id", String(64), nullable=False),
    Column("subnet_id", String(64), nullable=False),
    Column("node_id", String(64), nullable=False),
    Column("created_tx_hash", String(64), nullable=False),
    # JSON {"threshold", "addresses"} (bech32 without chain prefix, as UTXO rows): who gets
    # the balance back on disable or removal; NULL in stores written before revision 0008
    Column("remaining_balance_owner", Text, nullable=True),
    # the same for who may disable it (its deactivationOwner); NULL before revision 0019
    Column("deactivation_owner", Text, nullable=True),
    PrimaryKeyConstraint("validation_id"),
)

primary_l1_validation_txs = Table(
    "primary_l1_validation_txs",
    metadata,
    Column("validation_id", String(64), nullable=False),
    Column("block_timestamp", BigInteger, nullable=False),
    Column("block_number", BigInteger, nullable=False),
    Column("tx_index", Integer, nullable=False),
    Column("tx_hash", String(64), nullable=False),
    PrimaryKeyConstraint("validation_id", "block_timestamp", "block_number", "tx_index", "tx_hash"),
    sqlite_with_rowid=False,
)

# What only the node knows about each L1 validator (platform.getL1Validator), replaced after
# each pass: the balance left for the continuous fee (0 once disabled, or once removed: the
# node then no longer knows the validation, `removed`).
primary_l1_validator_live = Table(
    "primary_l1_validator_live",
    metadata,
    Column("validation_id", String(64), nullable=False),
    Column("balance", U256(), nullable=False),
    Column("removed", Boolean(create_constraint=False), nullable=False),
    Column("height", BigInteger, nullable=False),  # the node's P-chain height when asked
    PrimaryKeyConstraint("validation_id"),
)

# Imports indexed before the export that created what they consume (the indexer walks P, X,
# C in turn, and an import names a UTXO of another chain's shared memory): the spend waits
# here and is applied, in that batch's transaction, when the UTXO's row arrives.
primary_pending_spends = Table(
    "primary_pending_spends",
    metadata,
    Column("utxo_id", String(64), nullable=False),
    Column("consumed_on", String(64), nullable=False),
    Column("consuming_tx_hash", String(64), nullable=False),
    Column("consuming_block_number", BigInteger, nullable=False),
    Column("consuming_block_timestamp", BigInteger, nullable=False),
    PrimaryKeyConstraint("utxo_id"),
)

# The UTXO a DisableL1ValidatorTx or a weight-0 SetL1ValidatorWeightTx refunds the validator's
# balance into (index len(outputs) of the tx): chain state, not in the block, so its row in
# primary_utxos comes from the node or, once spent, from the spending input (revision 0008).
primary_l1_refunds = Table(
    "primary_l1_refunds",
    metadata,
    Column("utxo_id", String(64), nullable=False),
    Column("tx_hash", String(64), nullable=False),
    Column("output_index", Integer, nullable=False),
    Column("validation_id", String(64), nullable=False),
    PrimaryKeyConstraint("utxo_id"),
    Index(None, "tx_hash", "utxo_id"),
)

# What each primary-network tx burned, per asset (its fee: consumed minus created), and the
# nAVAX it put into L1 validator balances: getAvaxSupply sums the AVAX rows per chain. Only
# amounts below 2**63 are kept (every AVAX amount is: the supply is under 2**60).
primary_tx_burns = Table(
    "primary_tx_burns",
    metadata,
    Column("asset_id", String(64), nullable=False),
    Column("blockchain_id", String(64), nullable=False),
    Column("tx_hash", String(64), nullable=False),
    Column("burned", BigInteger, nullable=False),
    Column("l1_deposit", BigInteger, nullable=False),
    PrimaryKeyConstraint("asset_id", "blockchain_id", "tx_hash"),
    sqlite_with_rowid=False,
)

# The running sums of primary_tx_burns per asset and chain: the writer raises them in the
# batch's transaction by the burn rows it inserted (a replayed batch inserts none, so adds
# nothing), so getAvaxSupply reads a few rows instead of summing every tx's (revision 0022).
primary_burn_totals = Table(
    "primary_burn_totals",
    metadata,
    Column("asset_id", String(64), nullable=False),
    Column("blockchain_id", String(64), nullable=False),
    Column("burned", U256(), nullable=False),
    Column("l1_deposit", U256(), nullable=False),
    PrimaryKeyConstraint("asset_id", "blockchain_id"),
)

# The reward UTXOs by what listHistoricalPrimaryNetworkRewards selects them by: one row per
# reward UTXO and each of its period's reward addresses ("P-...", as primary_validations keeps
# them) and its node ID ("NodeID-..."), in the list's order (the reward UTXO's time, its ID),
# so a page walks one key's rows from its position (revision 0022).
primary_reward_keys = Table(
    "primary_reward_keys",
    metadata,
    Column("owner", String(128), nullable=False),
    Column("rewarded_at", BigInteger, nullable=False),
    Column("utxo_id", String(64), nullable=False),
    PrimaryKeyConstraint("owner", "rewarded_at", "utxo_id"),
    sqlite_with_rowid=False,
)

__all__ = [
    "api_keys",
    "api_secrets",
    "chains",
    "contracts",
    "cursors",
    "erc1155_balances",
    "erc20_balances",
    "erc721_owners",
    "evm_blocks",
    "evm_logs",
    "evm_tx_inputs",
    "evm_txs",
    "internal_call_participants",
    "internal_calls",
    "metadata",
    "metric_blocks",
    "metric_counts",
    "metric_first_seen",
    "metric_l1_accounts",
    "metric_l1_fee_days",
    "metric_last_seen",
    "metric_members",
    "metric_p_clock",
    "metric_page_tokens",
    "metric_rows_written",
    "metric_scopes",
    "metric_staking_days",
    "metric_staking_marks",
    "metric_sums",
    "native_balances",
    "networks",
    "nft_tokens",
    "primary_address_txs",
    "primary_address_utxos",
    "primary_assets",
    "primary_burn_totals",
    "primary_cursors",
    "primary_l1_refunds",
    "primary_l1_validation_txs",
    "primary_l1_validator_live",
    "primary_l1_validators",
    "primary_pending_spends",
    "primary_reward_keys",
    "primary_snapshot_counts",
    "primary_staker_live",
    "primary_tx_burns",
    "primary_txs",
    "primary_utxos",
    "primary_validations",
    "token_transfers",
    "tokens",
    "transfer_participants",
]
