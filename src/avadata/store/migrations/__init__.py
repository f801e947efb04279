"""The store's one Alembic history (portable operations; SQLite ALTERs run in batch mode)."""
