"""Freshness headers on every chain-scoped answer: `X-Avadata-Head` (the chain's indexed head
height) and `X-Avadata-Lag-Seconds` (how old that block is now), as a pure ASGI middleware.

Stage: api. Applies to the Data and Metrics API paths that name one chain (`/v1/chains/{id}/...`,
`/v2/chains/{id}/...`) and to the primary network's (`/v1/networks/{network}/...`: the chain
its `blockchains/{id}` names, P or X; the P-chain for the network-wide paths, which read it);
the head is looked up at most every `TTL_S` per chain, off the event loop. An unknown chain,
an empty store or a failed lookup adds no header. The lag is the age of the newest indexed
block: on a chain that makes no blocks it grows though nothing is missing (the health check
compares with the node).
"""

from __future__ import annotations

import asyncio
import logging
import re
import time

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from avadata import networks
from avadata.store.queries.freshness import evm_head, primary_head
from avadata.store.types import Engine

log = logging.getLogger(__name__)

TTL_S = 0.25
_CHAIN_PATH = re.compile(r"^/v[12]/chains/([^/]+)/")
_NETWORK_PATH = re.compile(r"^/v1/networks/[^/]+(?:/blockchains/([^/]+))?")
# The primary chains the freshness of a `blockchains/{id}` path is known for: the aliases and
# the fixed IDs (a local network's X-chain ID is not fixed: its paths go without headers).
_PRIMARY = {"p-chain": "P", "x-chain": "X", networks.P_CHAIN_ID: "P"} | {
    n.x_chain_id: "X" for n in (networks.MAINNET, networks.FUJI) if n.x_chain_id
}


def _key(path: str) -> str | None:
    """The cache key of the chain a path reads: an EVM chain's "<id>", or "primary:P|X"."""
    m = _CHAIN_PATH.match(path)
    if m is not None:
        return m.group(1)
    m = _NETWORK_PATH.match(path)
    if m is None:
        return None
    chain = "P" if m.group(1) is None else _PRIMARY.get(m.group(1))
    return None if chain is None else f"primary:{chain}"


class FreshnessMiddleware:
    def __init__(self, app: ASGIApp, engine: Engine) -> None:
        self.app = app
        self.engine = engine
        self._heads: dict[str, tuple[float, tuple[int, int] | None]] = {}
        # The lookup under way per key (a task of its own): the requests that find the entry
        # stale meanwhile wait for it rather than each looking the head up (under load, every
        # request in flight when the entry expires would, each on a connection of its own).
        self._pending: dict[str, asyncio.Task[tuple[int, int] | None]] = {}

    def _read(self, key: str) -> tuple[int, int] | None:
        with self.engine.connect() as conn:
            if key.startswith("primary:"):
                return primary_head(conn, key.removeprefix("primary:"))
            return evm_head(conn, key)

    async def _head(self, key: str) -> tuple[int, int] | None:
        hit = self._heads.get(key)
        if hit is not None and time.monotonic() - hit[0] < TTL_S:
            return hit[1]
        lookup = self._pending.get(key)
        if lookup is None:
            lookup = self._pending[key] = asyncio.ensure_future(self._lookup(key))
        # Shielded: a request cancelled while it waits (its client gone) cancels no lookup
        # the others wait for.
        return await asyncio.shield(lookup)

    async def _lookup(self, key: str) -> tuple[int, int] | None:
        now = time.monotonic()
        try:
            head = await anyio.to_thread.run_sync(self._read, key)
        except Exception:
            # The headers are an extra: a failed lookup (the server restarting, a connection
            # it closed) must not fail the requests waiting on it; they go without headers.
            log.warning("freshness: the head of %s could not be read", key, exc_info=True)
            head = None
        finally:
            del self._pending[key]
        if len(self._heads) > 10_000:  # bogus chain ids must not grow the cache forever
            self._heads.clear()
        self._heads[key] = (now, head)
        return head

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        key = _key(str(scope.get("path", ""))) if scope["type"] == "http" else None
        if key is None:
            await self.app(scope, receive, send)
            return
        head = await self._head(key)
        if head is None:
            await self.app(scope, receive, send)
            return

        async def send_fresh(message: Message) -> None:
            if message["type"] == "http.response.start":
                lag = max(0, int(time.time()) - head[1])
                extra = [
                    (b"x-avadata-head", b"%d" % head[0]),
                    (b"x-avadata-lag-seconds", b"%d" % lag),
                ]
                message = {**message, "headers": [*message.get("headers", ()), *extra]}
            await send(message)

        await self.app(scope, receive, send_fresh)
