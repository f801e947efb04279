"""New heads pushed by the node: `eth_subscribe("newHeads")` over WebSocket, where it has it.

Stage: sources. A following indexer learns of a block the moment the node accepts it instead
of at its next poll. `HeadWatcher.run` keeps one subscription up, reconnecting with backoff;
`moved` is set on every new head, `live` says whether a subscription is up. The follower keeps
polling at its own pace whenever it is not (and as a safety net when it is): a node without
WebSocket, or behind an HTTP-only proxy, is followed exactly as before.

Where the WebSocket is: avalanchego serves an EVM chain's at `/ext/bc/<chain>/ws` beside its
`/rpc`; anvil and most EVM nodes on the HTTP URL itself. Both are tried, in that order.
"""

from __future__ import annotations

import asyncio
import json
import logging
from urllib.parse import urlsplit, urlunsplit

import aiohttp

log = logging.getLogger(__name__)

# Waits for the handshake and the subscription's answer; then the first reconnection's.
CONNECT_S = 5.0
_RETRY_S, _RETRY_MAX_S = 1.0, 60.0


def ws_urls(http_url: str) -> list[str]:
    """The WebSocket URLs to try for an EVM JSON-RPC URL, most likely first."""
    parts = urlsplit(http_url)
    scheme = "wss" if parts.scheme == "https" else "ws"
    paths = [parts.path]
    if parts.path.rstrip("/").endswith("/rpc"):
        paths.insert(0, parts.path.rstrip("/")[: -len("/rpc")] + "/ws")
    return [urlunsplit((scheme, parts.netloc, p, parts.query, "")) for p in paths]


def _head_number(message: object) -> int | None:
    """The block number of an eth_subscription notification (None: another message)."""
    if not isinstance(message, dict) or message.get("method") != "eth_subscription":
        return None
    result = (message.get("params") or {}).get("result") or {}
    number = result.get("number") if isinstance(result, dict) else None
    return int(number, 16) if isinstance(number, str) else None


class HeadWatcher:
    def __init__(self, http_url: str) -> None:
        self.urls = ws_urls(http_url)
        self.moved = asyncio.Event()
        self.live = False
        self.head: int | None = None

    async def run(self) -> None:
        """Subscribe, and subscribe again whenever the connection ends, until cancelled."""
        wait = _RETRY_S
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=CONNECT_S)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            while True:
                for url in self.urls:
                    try:
                        await self._follow(session, url)
                        wait = _RETRY_S  # it was up: the next failure starts over
                    except (aiohttp.ClientError, TimeoutError, OSError, ValueError) as exc:
                        log.debug("newHeads on %s: %s", url, exc)
                    finally:
                        self.live = False
                await asyncio.sleep(wait)
                wait = min(_RETRY_MAX_S, wait * 2)

    async def _follow(self, session: aiohttp.ClientSession, url: str) -> None:
        async with session.ws_connect(url, heartbeat=30) as ws:
            ask = {"jsonrpc": "2.0", "id": 1, "method": "eth_subscribe", "params": ["newHeads"]}
            await ws.send_str(json.dumps(ask))
            answer = await ws.receive(timeout=CONNECT_S)
            if answer.type != aiohttp.WSMsgType.TEXT or "result" not in json.loads(answer.data):
                raise ValueError(f"no subscription: {str(answer.data)[:200]}")
            self.live = True
            log.info("following new heads over %s", url)
            async for msg in ws:
                if msg.type != aiohttp.WSMsgType.TEXT:
                    break
                number = _head_number(json.loads(msg.data))
                if number is not None:
                    self.head = number
                    self.moved.set()

    async def wait(self, seconds: float, stop: asyncio.Event | None) -> int | None:
        """Until a new head (only while live), `stop`, or `seconds`, whichever comes first: the
        head pushed meanwhile (or before, since the last wait), else None."""
        waits = [asyncio.ensure_future(self.moved.wait())] if self.live else []
        if stop is not None:
            waits.append(asyncio.ensure_future(stop.wait()))
        if not waits:
            await asyncio.sleep(seconds)
            return None
        try:
            await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()
        pushed = self.head if self.moved.is_set() else None
        self.moved.clear()  # a head pushed after this is seen by the next wait
        return pushed
