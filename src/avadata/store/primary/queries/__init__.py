"""Keyset and lookup queries over the primary network's tables, for the Data API."""
