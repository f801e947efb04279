"""The store: persist records and query them, on SQLite or PostgreSQL behind one interface.

Stage: store, the only package that imports SQLAlchemy (tests/store/test_fence.py); other
stages name its handles through `store.types`. Start here:
`make_engine(url)` -> `migrate.migrate(engine)` -> `write_evm_batch(engine, batch)`; reads in
`reads`.
See docs/store.md.

The names below load on first use: the fetch process imports `store.prepared` and `store.rows`
(pure, no database) and must not pay for SQLAlchemy by way of this package (~0.2 s). `migrate`
is not among them: its module has the same name, and an import of the module would replace
the function here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from avadata.store.cursors import EVM_SOURCE, Cursor, get_cursor
    from avadata.store.engine import make_engine, make_reader_engine
    from avadata.store.writer import (
        Applier,
        BlockGapError,
        mark_chain,
        write_evm_batch,
        write_evm_batch_in,
    )

_HOMES = {
    "EVM_SOURCE": "cursors",
    "Cursor": "cursors",
    "get_cursor": "cursors",
    "make_engine": "engine",
    "make_reader_engine": "engine",
    "Applier": "writer",
    "BlockGapError": "writer",
    "mark_chain": "writer",
    "write_evm_batch": "writer",
    "write_evm_batch_in": "writer",
}

__all__ = [
    "EVM_SOURCE",
    "Applier",
    "BlockGapError",
    "Cursor",
    "get_cursor",
    "make_engine",
    "make_reader_engine",
    "mark_chain",
    "write_evm_batch",
    "write_evm_batch_in",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"avadata.store.{home}"), name)
