"""The devnet's simulated primary network served for a test: a started PrimaryNode behind our
real Index API and platform API on 127.0.0.1, and stores indexed from it by the real indexer."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from avadata.devnet.facade.index_api import index_routes
from avadata.devnet.facade.pnode_routes import node_routes
from avadata.devnet.facade.server import FacadeServer
from avadata.devnet.primary.node import PrimaryNode
from avadata.indexer.primary.run import index_node
from avadata.store.engine import make_engine
from avadata.store.migrate import migrate


@contextmanager
def served_node(node: PrimaryNode) -> Iterator[str]:
    """`node` (already started) served as a real node would serve it; yields the node URL and
    stops the server and the node afterwards."""
    routes = [*index_routes(node.index_store), *node_routes(lambda: node.sim, node.lock)]
    server = FacadeServer([], port=0, extra_routes=routes)
    server.start()
    try:
        yield server.url
    finally:
        server.stop()
        node.stop()


def indexed(path: Path, node_url: str, **options: Any) -> Engine:
    """A fresh SQLite store at `path`, filled by one `index_node` pass over the node."""
    engine = make_engine(f"sqlite:///{path}")
    migrate(engine)
    asyncio.run(index_node(engine, node_url, once=True, **options))
    return engine
