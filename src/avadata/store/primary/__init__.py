"""The primary network's tables: records to rows, the write transaction, supply rows."""
