"""The store: persist records and query them, on SQLite or PostgreSQL behind one interface.

Stage: store, the only package that imports SQLAlchemy. Start here:
`make_engine(url)` -> `migrate(engine)` -> `write_evm_batch(engine, batch)`; reads in `reads`.
See docs/store.md.
"""

from avadata.store.cursors import EVM_SOURCE, Cursor, get_cursor
from avadata.store.engine import make_engine, make_reader_engine
from avadata.store.migrate import migrate
from avadata.store.writer import (
    Applier,
    BlockGapError,
    mark_chain,
    write_evm_batch,
    write_evm_batch_in,
)

__all__ = [
    "EVM_SOURCE",
    "Applier",
    "BlockGapError",
    "Cursor",
    "get_cursor",
    "make_engine",
    "make_reader_engine",
    "mark_chain",
    "migrate",
    "write_evm_batch",
    "write_evm_batch_in",
]
