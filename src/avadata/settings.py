"""The one settings model (environment prefix AVADATA_), built by the CLI and passed down.

Stage: shared. Every field has a default that works on a laptop: a loopback server, no rate
limits on loopback, no prices; the only outbound fetches are NFT metadata's, paced and kept
off private addresses. Other stages may add fields here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="AVADATA_", extra="ignore")

    # Store.
    db_url: str = "sqlite:///avadata.db"
    # Where the API reads: a replica of db_url (`serve --read-db`); None: db_url itself. Writes
    # (webhook configuration, NFT reindex requests, the delivery worker's cursors) go to db_url.
    read_db_url: str | None = None

    # Data API server.
    host: str = "127.0.0.1"
    port: int = 8080
    # Run the store-bound route bodies on the event loop, one at a time on one connection,
    # instead of in worker threads (api/deps.on_store). None: on SQLite only (its queries are
    # CPU work in this process). On PostgreSQL it saves each request the worker thread's hop
    # and serialises a process's queries: for `serve --workers N`, where the N processes give
    # the concurrency (docs/deploy.md).
    api_inline_reads: bool | None = None
    # HMAC key for page tokens. None: the secret kept in the store (api_secrets) is used, or,
    # on a store without that table, a random one per process (tokens then die with it).
    page_token_secret: str | None = None

    # Prices: a JSON file {"<chainId>": {"native" | "<token address>": {"usd": 1.0, ...}}}.
    # None: every price/balanceValue member is omitted (never invented).
    prices_file: Path | None = None
    # Money.value on the wire: the seed says string, the official SDK requires a number.
    money_value: Literal["string", "number"] = "number"
    # X-/C-chain Utxo.outputIndex: the official SDK's string (its X-chain and C-chain shapes
    # require it; the seed's UTXO table is the P-chain one), or an integer like the P-chain's
    # (see docs/compatibility.md, "Primary network").
    utxo_output_index: Literal["string", "number"] = "string"

    # The native token reported in nativeTokenBalance and the chains listing.
    native_token_name: str = "Avalanche"
    native_token_symbol: str = "AVAX"
    native_token_decimals: int = 18

    # The health check's bound on a chain's lag: seconds since its last indexed block's time
    # beyond which the chain is reported down. None: lag is reported, never judged (a devnet
    # makes blocks only when sent transactions, so an idle chain is not a stalled indexer).
    health_max_lag_s: float | None = Field(default=None, gt=0)

    # Rate limits in requests per minute per client (IP, or API key when one is sent), for the
    # Data API and the Metrics API alike (one limiter, one count per request; metrics needs no
    # key, a key raises the limit on both). 0 turns a limit off. Loopback clients are exempt
    # unless rate_limit_loopback is set.
    rate_limit_anonymous: int = Field(default=0, ge=0)
    rate_limit_keyed: int = Field(default=0, ge=0)
    rate_limit_loopback: bool = False

    # NFT metadata resolution (the worker `serve` runs unless --no-nft-worker): tokenURI by
    # eth_call on the chain's node, then the metadata over http(s)/ipfs, at most nft_fetch_per_s
    # fetches a second, each cut at nft_fetch_timeout_s and nft_max_metadata_bytes. Hosts on
    # loopback, private or link-local addresses are refused unless nft_fetch_private is set
    # (`avadata up` sets it: the devnet serves its metadata on 127.0.0.1).
    nft_fetch_enabled: bool = True
    nft_fetch_private: bool = False
    nft_fetch_per_s: float = Field(default=4.0, gt=0)
    ipfs_gateway: str = "https://ipfs.io/ipfs/"
    nft_fetch_timeout_s: float = 10.0
    nft_max_metadata_bytes: int = 1_000_000

    # Webhooks (docs/webhooks.md). Receivers on private, loopback or link-local addresses:
    # "auto" refuses them when the server is exposed (`host` not a loopback address), "allow"
    # and "refuse" decide outright. Checked when a URL is set and again before each POST.
    webhook_private_targets: Literal["auto", "allow", "refuse"] = "auto"
    webhook_max_addresses: int = Field(default=1000, ge=1)
    # One attempt waits this long for an answer (the hosted service waits 10 s).
    webhook_timeout_s: float = Field(default=10.0, gt=0)
    # Retries: exponential from base to max seconds, with jitter, and no give-up horizon.
    webhook_retry_base_s: float = Field(default=1.0, gt=0)
    webhook_retry_max_s: float = Field(default=600.0, gt=0)
    # How often the delivery worker looks for new blocks and webhooks.
    webhook_poll_s: float = Field(default=0.2, gt=0)
    # POSTs in flight at once across all webhooks (one webhook's are always one at a time).
    webhook_concurrency: int = Field(default=64, ge=1)
    # While the indexer backfills (an indexed head moving faster than a live chain), at most
    # this many messages a second leave (delivery/pacing.py); 0: never paced.
    webhook_backfill_rate: float = Field(default=200.0, ge=0)
    # The delivery lease (`serve` and `index` both host a worker; one delivers): held this
    # long per renewal, renewed every third of it; a standby takes over within this long of
    # the holder's death (kill -9).
    webhook_lease_s: float = Field(default=15.0, gt=0)
    # The delivery process's nice value at least (delivery/host.py): below the indexer's
    # writer (indexer/fetch/spawn.WRITER_NICE) and fetch processes, so when cores are short
    # the ingest goes first and deliveries take what is left; 0: its host's priority.
    webhook_nice: int = Field(default=19, ge=0, le=19)

    # Transaction exports (POST /v1/operations/transactions:export): their files are written
    # under <data_dir>/exports. None: the SQLite store's folder, else ./avadata-data.
    data_dir: Path | None = None
    # Rows read per query; a CSV export's memory is about one batch.
    export_batch_rows: int = Field(default=10_000, ge=1)
    # At most this long between two durable marks (what a crash makes the export write again).
    export_checkpoint_s: float = Field(default=1.0, ge=0)
    # How often the export worker looks for new operations.
    export_poll_s: float = Field(default=0.5, gt=0)

    def refuses_private_targets(self) -> bool:
        if self.webhook_private_targets != "auto":
            return self.webhook_private_targets == "refuse"
        return self.host not in ("127.0.0.1", "::1", "localhost")
