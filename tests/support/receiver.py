"""Test kit: a webhook receiver, a real aiohttp server on 127.0.0.1 in a thread of its own.

`policy(n, message)` decides each request's fate (n counts from 1): an HTTP status to answer
at once, or ("sleep", seconds, status) to answer late. `answered` keeps, in order, every
message that got a 2xx (a late 2xx too: the sender may have given that attempt up).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from tests.support.server import free_port

Policy = Callable[[int, dict[str, Any]], "int | tuple[str, float, int]"]


@dataclass
class Arrival:
    message: dict[str, Any]
    raw: bytes
    headers: dict[str, str]

    @property
    def tx_hash(self) -> str:
        return str(self.message["event"]["transaction"]["txHash"])


class Receiver:
    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.calls = 0
        self.answered: list[Arrival] = []
        self.lock = threading.Lock()

    async def handle(self, request: web.Request) -> web.Response:
        raw = await request.read()
        message = json.loads(raw)
        with self.lock:
            self.calls += 1
            n = self.calls
        fate = self.policy(n, message)
        if isinstance(fate, tuple):
            _, seconds, fate = fate
            await asyncio.sleep(seconds)
        if 200 <= fate < 300:
            with self.lock:
                self.answered.append(Arrival(message, raw, dict(request.headers)))
        return web.Response(status=fate)

    def arrivals(self) -> list[Arrival]:
        with self.lock:
            return list(self.answered)

    def hashes(self) -> set[str]:
        return {a.tx_hash for a in self.arrivals()}


@contextmanager
def receiving(policy: Policy) -> Iterator[tuple[Receiver, str]]:
    """A receiver at http://127.0.0.1:<port>/hook until the block ends."""
    rec = Receiver(policy)
    port = free_port()
    loop = asyncio.new_event_loop()
    app = web.Application()
    app.router.add_post("/hook", rec.handle)
    runner = web.AppRunner(app)
    started = threading.Event()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(runner.setup())
        loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", port).start())
        started.set()
        loop.run_forever()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert started.wait(10), "the receiver did not start"
    try:
        yield rec, f"http://127.0.0.1:{port}/hook"
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
