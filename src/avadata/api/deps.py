"""FastAPI dependencies: the app's state, the read-only connection, the chain lookup, path
parameters.

Stage: api. Page parameters and tokens are paging.py's.
"""

from __future__ import annotations

import functools
import re
import threading
import time
from collections.abc import Callable, Coroutine, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Annotated, Any, ParamSpec, TypeVar

from fastapi import Depends, Path, Request

from avadata.api.derived import DerivedCache
from avadata.api.errors import bad_request, not_found
from avadata.api.paging import PageCodec
from avadata.api.prices import PriceSource
from avadata.api.readers import LoopConnection, ReaderThreads
from avadata.settings import Settings
from avadata.store.engine import make_engine
from avadata.store.loop_readers import LoopReaders
from avadata.store.queries import chains as chain_queries
from avadata.store.queries.chains import ChainRow
from avadata.store.types import Connection, Engine

ADDRESS_PATTERN = r"^0x[0-9a-fA-F]{40}$"
_ADDRESS_RE = re.compile(ADDRESS_PATTERN)

AddressPath = Annotated[
    str, Path(pattern=ADDRESS_PATTERN, description="A 0x-prefixed 20-byte hex address")
]
ChainIdPath = Annotated[
    str, Path(alias="chainId", description="A supported EVM chain ID or blockchain ID")
]


class _ChainCache:
    """Chain rows by path key, and the list of every chain: the table is tiny and rarely changes
    (a chain is added when its indexer first starts), so a short TTL is enough. An unknown key
    is looked up every time, so a new chain's own paths serve it at once; the lists (supported
    chains, the all-chains lists) show it within `list_ttl_s`."""

    ttl_s = 10.0
    list_ttl_s = 1.0

    def __init__(self) -> None:
        self._rows: dict[str, tuple[float, ChainRow]] = {}
        self._all: tuple[float, list[ChainRow]] | None = None

    def all(self, conn: Connection) -> list[ChainRow]:
        """Every chain, by chain ID (a statement per request was a round trip per list)."""
        hit = self._all
        now = time.monotonic()
        if hit is not None and now - hit[0] < self.list_ttl_s:
            return hit[1]
        rows = chain_queries.list_chains(conn)
        self._all = (now, rows)
        return rows

    def get(self, conn: Connection, key: str) -> ChainRow | None:
        hit = self._rows.get(key)
        now = time.monotonic()
        if hit is not None and now - hit[0] < self.ttl_s:
            return hit[1]
        row = chain_queries.find_chain(conn, key)
        if row is not None:
            self._rows[key] = (now, row)
        return row


class StoreWriter:
    """A writer engine on the store, made on first use: the few operations that write
    (reindexNft) are rare, and the server otherwise holds no write handle. Its users run in a
    worker thread (never inline on the event loop: a write may wait for the indexer's lock)."""

    def __init__(self) -> None:
        self._engine: Engine | None = None
        self._lock = threading.Lock()

    def engine(self, url: str) -> Engine:
        with self._lock:
            if self._engine is None:
                self._engine = make_engine(url)
            return self._engine

    def close(self) -> None:
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None


# Where a store-bound body runs when not inline: greenlets on the loop on PostgreSQL,
# threads on SQLite (told not to run inline).
Readers = LoopReaders | ReaderThreads


@dataclass(frozen=True, slots=True)
class AppState:
    """What create_app builds once and every request reads."""

    settings: Settings
    engine: Engine
    codec: PageCodec
    prices: PriceSource | None
    loop: LoopConnection
    # Otherwise (not inline): what runs them, at most one per pooled connection at once.
    readers: Readers
    # Run store-bound route bodies on the event loop instead of a reader thread (see on_store).
    inline: bool = False
    # Per app: two apps on two stores must not share chain rows.
    chains: _ChainCache = field(default_factory=lambda: _ChainCache())
    writer: StoreWriter = field(default_factory=StoreWriter)
    # What the primary staking routes compute per P-chain head (api/derived.py).
    derived: DerivedCache = field(default_factory=DerivedCache)


# Async (it does no I/O) so FastAPI does not hop to a worker thread to run it.
async def state(request: Request) -> AppState:
    st: AppState = request.app.state.avadata
    return st


State = Annotated[AppState, Depends(state)]

P = ParamSpec("P")
R = TypeVar("R")


def on_store(func: Callable[P, R]) -> Callable[P, Coroutine[Any, Any, R]]:
    """Make a sync route body that reads the store into an async endpoint that runs it where
    it is cheapest. FastAPI would run a sync body in a worker thread: on SQLite (AppState.inline)
    the queries are CPU work under the GIL, so the thread adds a hop (about 0.2 ms here, more
    than a keyset page costs) and no parallelism, and the body runs inline on the event loop;
    on PostgreSQL the body runs in one of the app's reader threads (api/readers.py), so one
    request's network waits overlap another's work, as many at once as the engine pools
    connections, each thread on a connection it keeps while busy. The body
    must only read: a write could wait for the indexer's lock and would stall every request
    on the loop."""

    @functools.wraps(func)
    async def endpoint(*args: P.args, **kwargs: P.kwargs) -> R:
        st = _state_in(kwargs)
        if st.inline:
            with st.loop.running_inline():
                return func(*args, **kwargs)
        return await st.readers.run(functools.partial(func, *args, **kwargs))

    return endpoint


def _state_in(kwargs: Mapping[str, object]) -> AppState:
    for v in kwargs.values():
        if isinstance(v, AppState):
            return v
    raise TypeError("an @on_store route needs a State parameter")


def connection(st: State) -> Iterator[Connection]:
    with st.engine.connect() as conn:
        yield conn


# A dependency for routes that want one (the metrics routes); the EVM routes use chain_conn.
Conn = Annotated[Connection, Depends(connection)]


def chain(st: AppState, conn: Connection, chain_id: str) -> ChainRow:
    row = st.chains.get(conn, chain_id)
    if row is None:
        raise not_found(f"chainId: unknown chain {chain_id!r} (see GET /v1/chains)")
    return row


# Routes open their connection (and look the chain up) inside their own body rather than
# through sync dependencies: FastAPI runs each sync dependency in a worker thread of its own,
# and those hops cost more than the queries.
@contextmanager
def read_conn(st: AppState) -> Iterator[Connection]:
    with st.loop.connect() as conn:
        yield conn


@contextmanager
def chain_conn(st: AppState, chain_id: str) -> Iterator[tuple[Connection, ChainRow]]:
    """A read-only connection and the chain of `chain_id` (404 when unknown)."""
    with st.loop.connect() as conn:
        yield conn, chain(st, conn, chain_id)


def address(value: str, name: str = "address") -> str:
    """A validated address, lower-cased as the store keeps it."""
    if not _ADDRESS_RE.match(value):
        raise bad_request(f"{name}: must be a 0x-prefixed 20-byte hex address (got {value!r})")
    return value.lower()
