"""The delivery worker: every active webhook's events, from the store to its receiver, in order,
signed, retried until acknowledged.

Stage: delivery (hosted by `avadata serve` and `avadata index`, so `avadata up` runs it too,
in a process of its own that they start: host.py). One thread with its own event loop and its
own writer engine. Of all the workers on one store, only the holder of the delivery lease
(store/webhooks/lease.py) sends: the others wait to take it over.

Each active webhook has a lane (lanes.py). The keeper loop, every `webhook_poll_s`, renews the
lease and reads the chains' heads; every `PERSIST_S` it writes all lanes' acknowledged
positions in one transaction and reads the roster (every active webhook and its cursor, and
the owners' secrets) in one query. The reader reads the next messages of the lanes whose
chain moved, many lanes per store call (webhooks that watch the same addresses share one
read), and starts one sending task per lane: its messages one at a time, in order. POSTs of
all lanes run side by side, at most `webhook_concurrency` at once (sender.py). A message that
fails is retried (exponential backoff with jitter, capped, no give-up horizon) before any
later one of its webhook is sent; the other webhooks go on meanwhile.

Invariants:
- the cursor is in the store and moves only past acknowledged messages (2xx), so a crash
  (kill -9 included) loses no event; the message in flight and those acknowledged since the
  last write (`PERSIST_S`) are sent again, with the same messageIds;
- a webhook rewound, changed or deactivated while a message of it waits is reloaded before
  anything else of it is sent (a retry checks the store first, `registry.advance_many`
  refuses to move a cursor that moved meanwhile, and the roster resets the lane);
- a worker sends only while its lease has a quarter of its length left, and moves cursors
  only while the store says it holds it, so two processes never deliver the same webhook
  (apart from the messages in flight when a holder stalls past its lease).
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

from avadata.delivery.lanes import Lane
from avadata.delivery.pacing import Pacer
from avadata.delivery.pending import Outgoing, next_messages_many
from avadata.delivery.sender import Sender
from avadata.settings import Settings
from avadata.store.primary import webhook_events as primary_events
from avadata.store.types import Engine
from avadata.store.webhooks import events, lease, registry
from avadata.store.webhooks.registry import Webhook

log = logging.getLogger(__name__)

# Messages read per webhook per read; with many webhooks fewer, so that all lanes together
# hold about MESSAGES_HELD waiting messages (bodies in memory), never fewer than MIN_BATCH.
BATCH = 100
MESSAGES_HELD = 20_000
MIN_BATCH = 10
# Acknowledged positions reach the store at most about this late, all lanes' in one
# transaction (the indexer holds SQLite's one write lock for long stretches). A crash sends
# the messages of that last stretch again, under the same messageIds.
PERSIST_S = 0.25
# An idle webhook reads again at least this often (addresses added on a quiet chain).
_RELOAD_S = 5.0
# Lanes read per store call: a thousand due webhooks start sending after the first chunk.
READ_CHUNK = 64


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
        defer_s: float = 0.0,
    ) -> None:
        """`defer_s`: wait this long before asking for the lease the first time (a following
        `index` leaves it to a `serve` on the same store: its writer is better off without
        the deliveries in its process)."""
        # Reads go through `engine` (read-only: on SQLite a writer's every transaction takes
        # the write lock, which the indexer holds for long stretches); cursor moves and a
        # first secret through `writer`.
        self.engine = engine
        self.writer = writer
        self.settings = settings
        self.rand = rand
        self.sender = Sender(settings)
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._stop_asked = False
        self._wake = asyncio.Event()
        # Cursor writes and the roster's read: one at a time (a lane's own write after a
        # retry must not race the round's).
        self._store_lock = asyncio.Lock()
        self._lanes: dict[str, Lane] = {}
        self._heads: dict[int | str, int] = {}
        self.pacer = Pacer(settings.webhook_backfill_rate)
        self._secrets: dict[str, str] = {}
        self._synced_at = 0.0
        # Who this worker is in the delivery lease, and until when (monotonic) it may send.
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self._held_until = 0.0
        self._renew_at = time.monotonic() + defer_s

    def counts(self) -> dict[str, int]:
        """Messages POSTed since start, by outcome: acknowledged (2xx), failed (any other
        answer, or none), refused (a target the settings forbid)."""
        return self.sender.counts()

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
        self._stop_asked = True  # seen by `run` if its loop is not up yet
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
        if self._stop_asked:
            self._stop.set()
        async with self.sender:
            reader = asyncio.create_task(self._reader())
            try:
                while not self._stop.is_set():
                    if await self._keep_lease():
                        await self._round()
                    else:
                        await self._drop_lanes()
                    try:
                        await asyncio.wait_for(self._stop.wait(), self.settings.webhook_poll_s)
                    except TimeoutError:
                        pass
            finally:
                reader.cancel()
                await asyncio.gather(reader, return_exceptions=True)
                await self._drop_lanes()
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

    async def _round(self) -> None:
        """Read the heads; every `PERSIST_S` write the acknowledged positions and read the
        roster; then wake the reader."""
        try:
            self._heads = await asyncio.to_thread(self._read_heads)
            self.pacer.heads(self._heads)
        except Exception:
            log.exception("webhook delivery: cannot read the store")
            return
        now = time.monotonic()
        if now - self._synced_at >= PERSIST_S:
            self._synced_at = now
            async with self._store_lock:
                await self._persist_all()
                await self._sync_roster()
        self._wake.set()

    def _read_heads(self) -> dict[int | str, int]:
        with self.engine.connect() as conn:
            heads: dict[int | str, int] = dict(events.indexed_heads(conn).items())
            heads.update(primary_events.indexed_heads(conn))
        return heads

    async def _persist_all(self) -> None:
        """Move every lane's stored cursor to its acknowledged position, in one transaction
        (the caller holds the store lock). A lane whose move is refused (its cursor moved
        meanwhile: a rewind) turns stale: the roster resets it."""
        moves = [
            (wid, lane.persisted, lane.acked)
            for wid, lane in self._lanes.items()
            if lane.acked != lane.persisted and not lane.stale
        ]
        if not moves:
            return
        try:
            moved = await asyncio.to_thread(registry.advance_many, self.writer, moves, self.holder)
        except Exception:
            log.exception("webhook delivery: cannot write the cursors")
            return
        for wid, _old, new in moves:
            lane = self._lanes[wid]
            if wid in moved:
                lane.persisted = new
            else:
                lane.stale = True

    async def _sync_roster(self) -> None:
        """Lanes for the active webhooks as the store holds them (the caller holds the store
        lock, so no cursor write of ours is under way)."""
        try:
            hooks, found = await asyncio.to_thread(self._read_roster)
        except Exception:
            log.exception("webhook delivery: cannot read the webhooks")
            return
        self._secrets = found
        active = {h.webhook_id for h in hooks}
        for wid in [w for w in self._lanes if w not in active]:
            self._lanes.pop(wid).cancel()
        for hook in hooks:
            lane = self._lanes.get(hook.webhook_id)
            if lane is None:
                self._lanes[hook.webhook_id] = Lane.of(hook)
            else:
                lane.sync(hook)

    def _read_roster(self) -> tuple[list[Webhook], dict[str, str]]:
        with self.engine.connect() as conn:
            hooks = registry.active(conn)
            owners = {h.owner for h in hooks}
            found = registry.secrets_of(conn, owners)
        for owner in owners - found.keys():  # a webhook is never sent unsigned
            found[owner] = registry.ensure_secret(self.writer, owner)
        return hooks, found

    async def _drop_lanes(self) -> None:
        """Write what was acknowledged (fenced by the lease), then stop every lane."""
        if not self._lanes:
            return
        async with self._store_lock:
            await self._persist_all()
        tasks = [lane.task for lane in self._lanes.values() if lane.task is not None]
        for lane in self._lanes.values():
            lane.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._lanes.clear()

    # -- reading -----------------------------------------------------------------------------

    async def _reader(self) -> None:
        """Whenever woken: read the due lanes' next messages, a chunk at a time, and start
        their sending tasks."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self.holding():
                now = time.monotonic()
                due = [
                    lane
                    for lane in self._lanes.values()
                    if lane.due(self._heads.get(lane.hook.follows, -1), now, _RELOAD_S)
                ]
                if not due:
                    break
                await self._read(due[:READ_CHUNK])

    async def _read(self, due: list[Lane]) -> None:
        now = time.monotonic()
        views = []
        for lane in due:
            lane.reading = True
            views.append((lane, lane.gen, lane.reader_view(), self._heads.get(lane.hook.follows)))
        try:
            limit = max(MIN_BATCH, min(BATCH, MESSAGES_HELD // max(1, len(self._lanes))))
            found = await asyncio.to_thread(
                next_messages_many, self.engine, [v for _, _, v, _ in views], limit
            )
        except Exception:
            log.exception("webhook delivery: cannot read the webhooks' events")
            found = None
        for lane, gen, view, head in views:
            lane.reading = False
            lane.read_at = now
            if found is None or lane.gen != gen or lane.stale:
                continue
            messages = found[view.webhook_id]
            if messages:
                lane.task = asyncio.create_task(self._send_all(lane, gen, messages))
            else:
                lane.idle_head = -1 if head is None else head
        if found is None:
            await asyncio.sleep(self.settings.webhook_poll_s)

    # -- sending -----------------------------------------------------------------------------

    async def _send_all(self, lane: Lane, gen: int, messages: list[Outgoing]) -> None:
        """`messages` of one lane, in order, each until acknowledged; stops when the lane is
        reset or turns stale, or the lease is lost."""
        try:
            for ev in messages:
                retried = await self._send(lane, gen, ev)
                if retried is None or lane.gen != gen:
                    return
                lane.acked = ev.position
                # After a retry, at once: a rewind that came meanwhile stops what follows.
                if retried and not await self._persist(lane, gen):
                    return
            lane.idle_head = None  # a full batch: more may follow
            self._wake.set()
        except Exception:
            log.exception("webhook %s: delivery failed; retrying", lane.hook.webhook_id)
            await asyncio.sleep(self.settings.webhook_poll_s)

    async def _send(self, lane: Lane, gen: int, ev: Outgoing) -> int | None:
        """POST `ev` until a 2xx: the number of failed attempts before it, or None when the
        lane was reset or turned stale meanwhile, or the lease was lost."""
        attempt = 0
        while True:
            secret = self._secrets.get(lane.hook.owner)
            if not self.holding() or lane.gen != gen or secret is None:
                return None
            if ev.body is not None:
                await self.pacer.wait()
            if ev.body is None or await self.sender.post(lane.hook, ev.body, secret):
                return attempt
            # What was acknowledged reaches the store before the wait, which may be long.
            if not await self._persist(lane, gen):
                return None
            s = self.settings
            await asyncio.sleep(
                backoff_s(attempt, s.webhook_retry_base_s, s.webhook_retry_max_s, self.rand)
            )
            attempt += 1
            if not await self._still_current(lane, gen):
                return None

    async def _persist(self, lane: Lane, gen: int) -> bool:
        """One lane's cursor to its acknowledged position now; False when the move was
        refused (the lane turns stale) or the lane was reset."""
        async with self._store_lock:
            if lane.gen != gen or lane.stale:
                return False
            if lane.acked == lane.persisted:
                return True
            wid, move = lane.hook.webhook_id, (lane.persisted, lane.acked)
            moved = await asyncio.to_thread(
                registry.advance_many, self.writer, [(wid, *move)], self.holder
            )
            if lane.gen != gen:
                return False
            if wid not in moved:
                lane.stale = True
                return False
            lane.persisted = move[1]
            return True

    async def _still_current(self, lane: Lane, gen: int) -> bool:
        """Before a retry: is the webhook still active, where this lane left its cursor, at
        the same URL? If not the lane turns stale (the roster reloads it)."""
        async with self._store_lock:
            now = await asyncio.to_thread(registry.get, self.engine, None, lane.hook.webhook_id)
            if lane.gen != gen:
                return False
            if now is None or (now.status, now.cursor, now.url) != (
                "active",
                lane.persisted,
                lane.hook.url,
            ):
                lane.stale = True
                return False
            return True
