"""A per-client rate limit for the Metrics API: 429 with Retry-After, off on loopback.

Stage: api. Limits come from the settings (`rate_limit_anonymous` requests per minute per
client IP; 0 turns it off; loopback clients are exempt unless `rate_limit_loopback`). The
count is per process: behind N processes a client gets at most N times the limit, which the
operator sets accordingly (or puts a shared limiter in the proxy in front).
"""

from __future__ import annotations

import ipaddress
import math
import threading
import time
from collections.abc import Callable

from fastapi import Request

from avadata.api.errors import ApiError

WINDOW_S = 60.0


class RateLimiter:
    """A sliding-log-free fixed window per client: simple, O(1), good enough for a local API."""

    def __init__(
        self,
        per_minute: int,
        *,
        loopback_too: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_minute = per_minute
        self.loopback_too = loopback_too
        self.clock = clock
        self._windows: dict[str, tuple[float, int]] = {}
        self._lock = threading.Lock()

    def check(self, client: str) -> None:
        """Count one request of `client`; raise a 429 ApiError past the limit."""
        if self.per_minute <= 0 or (not self.loopback_too and _is_loopback(client)):
            return
        now = self.clock()
        with self._lock:
            started, count = self._windows.get(client, (now, 0))
            if now - started >= WINDOW_S:
                started, count = now, 0
            if count >= self.per_minute:
                retry = max(1, math.ceil(started + WINDOW_S - now))
                raise ApiError(
                    429,
                    f"rate limit of {self.per_minute} requests per minute exceeded; "
                    f"retry in {retry} s",
                    headers={"Retry-After": str(retry)},
                )
            self._windows[client] = (started, count + 1)
            if len(self._windows) > 100_000:  # forget idle clients now and then
                self._windows = {k: v for k, v in self._windows.items() if now - v[0] < WINDOW_S}


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host in ("localhost", "testclient")


def client_of(request: Request) -> str:
    return request.client.host if request.client is not None else "unknown"
