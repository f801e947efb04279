"""One POST of a webhook message: refused targets, the signature headers, the answer read as
acknowledged (2xx) or failed, and a count of each outcome.

Stage: delivery. One `Sender` per delivery worker: one aiohttp session whose connector and a
semaphore bound the POSTs in flight across all webhooks (`webhook_concurrency`), so a thousand
webhooks share a few dozen keep-alive connections instead of queueing a thousand requests in
one pool (where a queued request's wait would count against its own timeout).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time

import aiohttp

from avadata.delivery import signing, targets
from avadata.settings import Settings
from avadata.store.webhooks.registry import Webhook

log = logging.getLogger(__name__)


class Sender:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._session: aiohttp.ClientSession | None = None
        self._slots = asyncio.Semaphore(settings.webhook_concurrency)
        # POSTs by outcome since start (GET /metrics of the serving process reads them).
        self._counts = {"acknowledged": 0, "failed": 0, "refused": 0}
        self._counts_lock = threading.Lock()

    async def __aenter__(self) -> Sender:
        connector = aiohttp.TCPConnector(limit=self.settings.webhook_concurrency)
        timeout = aiohttp.ClientTimeout(total=self.settings.webhook_timeout_s)
        self._session = aiohttp.ClientSession(connector=connector, timeout=timeout)
        return self

    async def __aexit__(self, *_exc: object) -> None:
        if self._session is not None:
            await self._session.close()

    def counts(self) -> dict[str, int]:
        with self._counts_lock:
            return dict(self._counts)

    def _count(self, outcome: str) -> None:
        with self._counts_lock:
            self._counts[outcome] += 1

    async def post(self, hook: Webhook, body: bytes, secret: str) -> bool:
        """POST `body` to `hook`'s URL, signed with `secret`: True on a 2xx answer."""
        if self.settings.refuses_private_targets():
            reason = await asyncio.to_thread(targets.resolved_refusal, hook.url, True)
            if reason is not None:
                log.warning("webhook %s: not sent: %s", hook.webhook_id, reason)
                self._count("refused")
                return False
        assert self._session is not None, "use the Sender as an async context manager"
        async with self._slots:
            headers = signing.headers(secret, body, int(time.time()))
            try:
                async with self._session.post(
                    hook.url, data=body, headers=headers, allow_redirects=False
                ) as answer:
                    status = answer.status
                    await answer.read()
            except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
                # ValueError: a URL aiohttp cannot use (checked when set; kept as a failure).
                log.info("webhook %s: %s: %s", hook.webhook_id, hook.url, type(exc).__name__)
                self._count("failed")
                return False
        if 200 <= status < 300:
            self._count("acknowledged")
            return True
        log.info("webhook %s: %s answered %d", hook.webhook_id, hook.url, status)
        self._count("failed")
        return False
