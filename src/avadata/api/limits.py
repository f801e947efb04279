"""Per-client rate limits and API keys, as a pure ASGI middleware (no per-request task spawn).

Stage: api. The one limiter of the app: it serves the Data API and the Metrics API alike, so
a request is counted exactly once whichever router answers it. A request carrying
`x-data-api-key` (the seed's header) or `x-glacier-api-key` (what the official SDK sends) is
counted against its key with the key's limit (or `rate_limit_keyed`); an unknown or revoked key
is a 401. Other requests count per client IP against `rate_limit_anonymous`. The Metrics API
needs no key (seed): a valid key still raises its limit, but an unknown or revoked one there
counts as no key rather than a 401. 0 means unlimited. Loopback clients are exempt unless
`rate_limit_loopback` is set. Over the limit: 429 with Retry-After (seconds to the next window).

Counting is a fixed one-minute window per client, per process.
"""

from __future__ import annotations

import ipaddress
import math
import threading
import time
from collections.abc import Callable

import anyio
from starlette.types import ASGIApp, Receive, Scope, Send

from avadata.api.errors import error_response
from avadata.settings import Settings
from avadata.store.keys import KeyInfo, lookup
from avadata.store.types import Engine

WINDOW_S = 60.0
_KEY_HEADERS = (b"x-data-api-key", b"x-glacier-api-key")
_EXEMPT_PATHS = ("/docs", "/openapi.json", "/redoc")
# The Metrics API's routes (v2 metrics and chains, the legacy avg_tps): no authentication.
_KEYLESS_PATHS = ("/v2/", "/v1/avg_tps/")
_KEY_CACHE_S = 30.0
# The scope entry holding the KeyInfo of a request that sent a valid key.
KEY_SCOPE = "avadata.api_key"


def _is_loopback(host: str | None) -> bool:
    if not host:
        return False
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host in ("localhost", "testclient")


class Windows:
    """Fixed one-minute windows per client id; thread-safe."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._windows: dict[str, tuple[float, int]] = {}
        self._lock = threading.Lock()

    def hit(self, client: str, limit: int) -> float | None:
        """Count one request; None when allowed, else seconds until the window resets."""
        now = self.clock()
        with self._lock:
            start, count = self._windows.get(client, (now, 0))
            if now - start >= WINDOW_S:
                start, count = now, 0
            if count >= limit:
                return WINDOW_S - (now - start)
            self._windows[client] = (start, count + 1)
            if len(self._windows) > 100_000:  # forget idle clients rather than grow forever
                self._windows = {k: v for k, v in self._windows.items() if now - v[0] < WINDOW_S}
        return None


class RateLimitMiddleware:
    def __init__(self, app: ASGIApp, settings: Settings, engine: Engine) -> None:
        self.app = app
        self.settings = settings
        self.engine = engine
        self.windows = Windows()
        self._keys: dict[str, tuple[float, KeyInfo | None]] = {}

    def _key_info(self, key: str) -> KeyInfo | None:
        hit = self._keys.get(key)
        now = time.monotonic()
        if hit is not None and now - hit[0] < _KEY_CACHE_S:
            return hit[1]
        with self.engine.connect() as conn:
            info = lookup(conn, key)
        if len(self._keys) > 10_000:  # random bogus keys must not grow the cache forever
            self._keys.clear()
        self._keys[key] = (now, info)
        return info

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or str(scope.get("path", "")).startswith(_EXEMPT_PATHS):
            await self.app(scope, receive, send)
            return
        key = None
        for name, value in scope.get("headers", ()):
            if name in _KEY_HEADERS and value:
                key = value.decode("latin-1").strip()
                break
        client = scope.get("client")
        host = client[0] if client else None
        s = self.settings
        info = None if key is None else await anyio.to_thread.run_sync(self._key_info, key)
        if key is not None and info is None and not str(scope["path"]).startswith(_KEYLESS_PATHS):
            await error_response(401, "unknown or revoked API key")(scope, receive, send)
            return
        if info is not None:
            # The routes that own things (webhooks) read whose request it is from here.
            scope[KEY_SCOPE] = info
            who, limit = f"key:{info.key_id}", info.rate_limit or s.rate_limit_keyed
        else:
            who, limit = f"ip:{host}", s.rate_limit_anonymous
        if limit > 0 and (s.rate_limit_loopback or not _is_loopback(host)):
            wait = self.windows.hit(who, limit)
            if wait is not None:
                retry = str(max(1, math.ceil(wait)))
                message = f"rate limit of {limit} requests per minute exceeded; retry in {retry} s"
                resp = error_response(429, message, {"Retry-After": retry})
                await resp(scope, receive, send)
                return
        await self.app(scope, receive, send)
