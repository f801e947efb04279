"""Alembic environment: always run online, on the connection `avadata.store.migrate` passes in.

Stage: store. No alembic.ini and no logging setup: the caller owns both.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from avadata.store.partitions import is_partition_name
from avadata.store.schema import metadata

connection = context.config.attributes.get("connection")
if not isinstance(connection, Connection):
    raise RuntimeError("run migrations through avadata.store.migrate.migrate(engine)")

context.configure(
    connection=connection,
    target_metadata=metadata,
    # Batch mode turns ALTERs SQLite lacks into copy-and-rename; PostgreSQL runs them directly.
    render_as_batch=True,
    compare_type=True,
    # A PostgreSQL store's partitions are made by the writer, not declared (store/partitions.py).
    include_name=lambda name, type_, _parents: (
        not (type_ == "table" and name is not None and is_partition_name(name))
    ),
)
with context.begin_transaction():
    context.run_migrations()
