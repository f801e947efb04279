"""avadata: a self-hosted Avalanche data stack (indexer, Data API, Metrics API, devnet)."""

__version__ = "0.1.0"
