"""Freshness headers on every chain-scoped answer: `X-Avadata-Head` (the chain's indexed head
height) and `X-Avadata-Lag-Seconds` (how old that block is now), as a pure ASGI middleware.

Stage: api. Applies to the Data and Metrics API paths that name one chain (`/v1/chains/{id}/...`,
`/v2/chains/{id}/...`); the head is looked up at most every `TTL_S` per chain, off the event
loop. An unknown chain or an empty store adds no header. The lag is the age of the newest
indexed block: on a chain that makes no blocks it grows though nothing is missing (the health
check compares with the node).
"""

from __future__ import annotations

import re
import time

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from avadata.store.queries.freshness import evm_head
from avadata.store.types import Engine

TTL_S = 0.25
_CHAIN_PATH = re.compile(r"^/v[12]/chains/([^/]+)/")


class FreshnessMiddleware:
    def __init__(self, app: ASGIApp, engine: Engine) -> None:
        self.app = app
        self.engine = engine
        self._heads: dict[str, tuple[float, tuple[int, int] | None]] = {}

    def _read(self, key: str) -> tuple[int, int] | None:
        with self.engine.connect() as conn:
            return evm_head(conn, key)

    async def _head(self, key: str) -> tuple[int, int] | None:
        hit = self._heads.get(key)
        now = time.monotonic()
        if hit is not None and now - hit[0] < TTL_S:
            return hit[1]
        head = await anyio.to_thread.run_sync(self._read, key)
        if len(self._heads) > 10_000:  # bogus chain ids must not grow the cache forever
            self._heads.clear()
        self._heads[key] = (now, head)
        return head

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        m = _CHAIN_PATH.match(str(scope.get("path", ""))) if scope["type"] == "http" else None
        if m is None:
            await self.app(scope, receive, send)
            return
        head = await self._head(m.group(1))
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
