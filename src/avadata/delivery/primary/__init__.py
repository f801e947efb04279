"""delivery's primary wing: the primary network's webhook messages (P-/X-chain rows in)."""
