"""The delivery worker: every active webhook's events, from the store to its receiver, in order,
signed, retried until acknowledged.

Stage: delivery (hosted by `avadata serve` and `avadata index`, so `avadata up` runs it too).
One thread with its own event loop and its own writer engine; the API stays read-only for
everything else. Of all the workers on one store, only the holder of the delivery lease
(store/webhooks/lease.py) sends: the others wait to take it over.

Per webhook, one task: read the transactions after the webhook's cursor (up to the chain's
indexed head), POST each as one message, and move the cursor past it only after a 2xx answer
(written at most `PERSIST_S` later).
A message that fails is retried (exponential backoff with jitter, capped, no give-up
horizon) before any later one is sent: events arrive in chain order.

Invariants:
- the cursor is in the store and moves only past acknowledged messages (2xx), so a crash
  (kill -9 included) loses no event; the message in flight and those acknowledged in the
  last `PERSIST_S` are sent again, with the same messageIds;
- a webhook rewound, changed or deactivated while a message waits is reloaded before anything
  else is sent (`registry.advance` refuses to move a cursor that moved meanwhile).
- a worker sends only while its lease has a quarter of its length left, and moves cursors
  only while the store says it holds it, so two processes never deliver the same webhook
  (apart from the one message in flight when a holder stalls past its lease).
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import secrets
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from avadata.delivery import signing, targets
from avadata.delivery.pending import Outgoing, next_messages
from avadata.settings import Settings
from avadata.store.primary import webhook_events as primary_events
from avadata.store.types import Engine
from avadata.store.webhooks import events, lease, registry
from avadata.store.webhooks.registry import Webhook

log = logging.getLogger(__name__)

# Messages read per query.
BATCH = 100
# Acknowledged positions reach the store at most this late (one write per webhook per period,
# not per message: the indexer holds SQLite's one write lock for long stretches). A crash
# sends the messages of that last stretch again, under the same messageIds.
PERSIST_S = 0.25
# A waiting webhook reloads its configuration (addresses, rewinds) at least this often.
_RELOAD_S = 5.0


@dataclass(slots=True)
class _Progress:
    """One webhook's position: what the store holds, what the receiver acknowledged."""

    persisted: tuple[int, int]
    acked: tuple[int, int]
    at: float


def backoff_s(attempt: int, base: float, cap: float, rand: Callable[[], float]) -> float:
    """The wait after failed attempt number `attempt` (0-based): base * 2**attempt, capped,
    then between half and all of it (jitter: receivers that failed together do not retry
    together)."""
    full: float = min(cap, base * 2.0 ** min(attempt, 60))
    return full * (0.5 + rand() / 2)


class DeliveryWorker:
    def __init__(
        self,
        engine: Engine,
        writer: Engine,
        settings: Settings,
        *,
        rand: Callable[[], float] = random.random,
    ) -> None:
        # Reads go through `engine` (read-only: on SQLite a writer's every transaction takes
        # the write lock, which the indexer holds for long stretches); cursor moves and a
        # first secret through `writer`.
        self.engine = engine
        self.writer = writer
        self.settings = settings
        self.rand = rand
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._heads: dict[int | str, int] = {}
        self._moved: dict[int | str, asyncio.Event] = {}
        # Who this worker is in the delivery lease, and until when (monotonic) it may send.
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self._held_until = 0.0
        self._renew_at = 0.0
        # POSTs by outcome since start (GET /metrics of the serving process reads them).
        self._counts = {"acknowledged": 0, "failed": 0, "refused": 0}
        self._counts_lock = threading.Lock()

    def counts(self) -> dict[str, int]:
        """Messages POSTed since start, by outcome: acknowledged (2xx), failed (any other
        answer, or none), refused (a target the settings forbid)."""
        with self._counts_lock:
            return dict(self._counts)

    def _count(self, outcome: str) -> None:
        with self._counts_lock:
            self._counts[outcome] += 1

    # -- the thread ------------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._main, name="avadata-delivery", daemon=True)
        self._thread.start()

    def _main(self) -> None:
        try:
            asyncio.run(self.run())
        except Exception:
            log.exception("the webhook delivery worker stopped")

    def stop(self, timeout: float = 10.0) -> None:
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(stop.set)
        if self._thread is not None:
            self._thread.join(timeout)

    # -- the loop --------------------------------------------------------------------------

    async def run(self) -> None:
        """Deliver until stopped: follow the chains' heads and the roster of active webhooks."""
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        tasks: dict[str, asyncio.Task[None]] = {}
        async with httpx.AsyncClient(follow_redirects=False) as client:
            try:
                while not self._stop.is_set():
                    if await self._keep_lease():
                        await self._poll(client, tasks)
                    else:
                        _cancel(tasks)
                    try:
                        await asyncio.wait_for(self._stop.wait(), self.settings.webhook_poll_s)
                    except TimeoutError:
                        pass
            finally:
                _cancel(tasks)
                await asyncio.gather(*tasks.values(), return_exceptions=True)
                if self._held_until:
                    await asyncio.to_thread(self._release)

    # -- the lease -------------------------------------------------------------------------

    def holding(self) -> bool:
        """Whether this worker may send now: it renewed the lease recently enough that no
        other process can have taken it (a quarter of the lease's length to spare)."""
        return time.monotonic() < self._held_until

    async def _keep_lease(self) -> bool:
        """Take or renew the delivery lease when due (every third of its length; a standby
        asks every second at most, so it takes over about a lease's length after the holder's
        last renewal)."""
        now = time.monotonic()
        if now < self._renew_at:
            return self.holding()
        ttl = self.settings.webhook_lease_s
        self._renew_at = now + ttl / 3
        try:
            ok = await asyncio.to_thread(lease.take, self.writer, lease.DELIVERY, self.holder, ttl)
        except Exception:
            log.exception("webhook delivery: cannot renew the delivery lease")
            return self.holding()
        was = self._held_until > 0
        self._held_until = now + ttl * 0.75 if ok else 0.0
        if not ok:  # a standby: ask again soon, to take over soon after the holder dies
            self._renew_at = now + min(ttl / 3, 1.0)
        if ok and not was:
            log.info("webhook delivery: this process delivers (%s)", self.holder)
        return ok

    def _release(self) -> None:
        try:
            lease.release(self.writer, lease.DELIVERY, self.holder)
        except Exception:
            log.exception("webhook delivery: cannot release the delivery lease")

    async def _poll(self, client: httpx.AsyncClient, tasks: dict[str, asyncio.Task[None]]) -> None:
        try:
            heads, active = await asyncio.to_thread(self._read_roster)
        except Exception:
            log.exception("webhook delivery: cannot read the store")
            return
        for chain, head in heads.items():
            if self._heads.get(chain) != head:
                self._heads[chain] = head
                self._moved.pop(chain, asyncio.Event()).set()
        for wid in active:
            if wid not in tasks or tasks[wid].done():
                tasks[wid] = asyncio.create_task(self._deliver(client, wid))
        for wid in [w for w in tasks if w not in active]:
            tasks.pop(wid).cancel()

    def _read_roster(self) -> tuple[dict[int | str, int], set[str]]:
        with self.engine.connect() as conn:
            heads: dict[int | str, int] = dict(events.indexed_heads(conn).items())
            heads.update(primary_events.indexed_heads(conn))
        return heads, set(registry.active_ids(self.engine))

    async def _head_moved(self, chain: int | str) -> None:
        event = self._moved.setdefault(chain, asyncio.Event())
        try:
            await asyncio.wait_for(event.wait(), _RELOAD_S)
        except TimeoutError:
            pass

    # -- one webhook -----------------------------------------------------------------------

    async def _deliver(self, client: httpx.AsyncClient, webhook_id: str) -> None:
        while True:
            try:
                hook = await asyncio.to_thread(registry.get, self.engine, None, webhook_id)
                if hook is None or hook.status != "active" or not self.holding():
                    return
                pending = await asyncio.to_thread(next_messages, self.engine, hook, BATCH)
            except Exception:
                log.exception("webhook %s: cannot read its events", webhook_id)
                await asyncio.sleep(self.settings.webhook_poll_s)
                continue
            if not pending:
                await self._head_moved(hook.follows)
                continue
            progress = _Progress(hook.cursor, hook.cursor, time.monotonic())
            try:
                secret = await asyncio.to_thread(self._secret, hook.owner)
                for ev in pending:
                    if not await self._send(client, hook, secret, progress, ev):
                        break
                else:
                    await self._persist(hook.webhook_id, progress)
            except Exception:
                # No message is lost (the cursor is behind every unacknowledged one); the
                # store may be busy: read again and go on.
                log.exception("webhook %s: delivery failed; retrying", webhook_id)
                await asyncio.sleep(self.settings.webhook_poll_s)

    async def _send(
        self,
        client: httpx.AsyncClient,
        hook: Webhook,
        secret: str,
        progress: _Progress,
        ev: Outgoing,
    ) -> bool:
        """POST `ev` until a 2xx; False when the webhook changed meanwhile or the lease was
        lost (the caller reloads it). Acknowledged positions reach the store at most
        `PERSIST_S` late, at once before a retry waits, and at the end of a batch."""
        body = ev.body
        attempt = 0
        while True:
            if not self.holding():
                await self._persist(hook.webhook_id, progress)  # fenced: only if still ours
                return False
            if body is None or await self._post(client, hook, body, secret):
                progress.acked = ev.position
                if attempt or time.monotonic() - progress.at >= PERSIST_S:
                    return await self._persist(hook.webhook_id, progress)
                return True
            if not await self._persist(hook.webhook_id, progress):
                return False
            s = self.settings
            await asyncio.sleep(
                backoff_s(attempt, s.webhook_retry_base_s, s.webhook_retry_max_s, self.rand)
            )
            attempt += 1
            now = await asyncio.to_thread(registry.get, self.engine, None, hook.webhook_id)
            if now is None or (now.status, now.cursor, now.url) != (
                "active",
                progress.persisted,
                hook.url,
            ):
                return False
            secret = await asyncio.to_thread(self._secret, hook.owner)

    async def _persist(self, webhook_id: str, progress: _Progress) -> bool:
        """Move the stored cursor to the last acknowledged position; False when it had moved
        meanwhile (a rewind)."""
        progress.at = time.monotonic()
        if progress.acked == progress.persisted:
            return True
        ok = await asyncio.to_thread(
            registry.advance,
            self.writer,
            webhook_id,
            progress.persisted,
            progress.acked,
            self.holder,
        )
        if ok:
            progress.persisted = progress.acked
        return ok

    def _secret(self, owner: str) -> str:
        found = registry.read_secret(self.engine, owner)
        return found if found is not None else registry.ensure_secret(self.writer, owner)

    async def _post(
        self, client: httpx.AsyncClient, hook: Webhook, body: bytes, secret: str
    ) -> bool:
        reason = None
        if self.settings.refuses_private_targets():
            reason = await asyncio.to_thread(targets.resolved_refusal, hook.url, True)
        if reason is not None:
            log.warning("webhook %s: not sent: %s", hook.webhook_id, reason)
            self._count("refused")
            return False
        headers = signing.headers(secret, body, int(time.time()))
        try:
            answer = await client.post(
                hook.url, content=body, headers=headers, timeout=self.settings.webhook_timeout_s
            )
        except httpx.HTTPError as exc:
            log.info("webhook %s: %s: %s", hook.webhook_id, hook.url, type(exc).__name__)
            self._count("failed")
            return False
        if 200 <= answer.status_code < 300:
            self._count("acknowledged")
            return True
        log.info("webhook %s: %s answered %d", hook.webhook_id, hook.url, answer.status_code)
        self._count("failed")
        return False


def _cancel(tasks: dict[str, asyncio.Task[None]]) -> None:
    for task in tasks.values():
        task.cancel()
