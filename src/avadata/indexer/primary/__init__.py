"""The primary-network indexer: Index API and platform API -> decode -> store."""
