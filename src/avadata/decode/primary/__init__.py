"""The primary network (P, X and C atomic): container bytes in, records out (pure)."""
