"""A webhook's lane in the delivery worker: its configuration as last read, its positions
(what the store holds, what the receiver acknowledged) and its one sending task.

Stage: delivery; pure bookkeeping (the worker does the I/O). One lane per active webhook: its
messages go out one at a time, in order; lanes run side by side.

Invariants: `persisted <= acked`, and `persisted` is what this worker last read or wrote in
the store; a lane whose store cursor moved under it (a rewind) is `reset` to the store's
cursor, and `gen` changes, so a read or a send begun before the reset cannot move it.
"""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass

from avadata.store.webhooks.registry import Webhook

Position = tuple[int, int]


@dataclass(slots=True, eq=False)
class Lane:
    hook: Webhook
    persisted: Position
    acked: Position
    gen: int = 0
    task: asyncio.Task[None] | None = None
    reading: bool = False
    # The store's cursor may have moved under the lane (a move refused, a retry's check
    # failed): nothing more is sent until the roster resets it.
    stale: bool = False
    # The chain's head when the last read found nothing to send (None: read again at once).
    idle_head: int | None = None
    read_at: float = 0.0

    @classmethod
    def of(cls, hook: Webhook) -> Lane:
        return cls(hook, hook.cursor, hook.cursor)

    def busy(self) -> bool:
        return self.reading or (self.task is not None and not self.task.done())

    def due(self, head: int, now: float, reload_s: float) -> bool:
        """Whether to read its next messages: idle, not stale, and its chain's head moved
        past the last read that found nothing (or that read is `reload_s` old: addresses
        may have been added)."""
        if self.busy() or self.stale:
            return False
        return self.idle_head is None or head > self.idle_head or now - self.read_at >= reload_s

    def reader_view(self) -> Webhook:
        """The webhook as a read of its next messages sees it: after the acknowledged one."""
        return dataclasses.replace(self.hook, cursor=self.acked)

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()
        self.task = None
        self.gen += 1
        self.idle_head = None

    def sync(self, hook: Webhook) -> None:
        """Take the roster's row of this webhook: start again from the store's cursor when it
        is not the one this lane wrote (a rewind, a refused move), from the acknowledged
        position when what a message holds changed (options, filter), else just follow a new
        URL or name."""
        if self.stale or hook.cursor != self.persisted:
            self.cancel()
            self.persisted = self.acked = hook.cursor
            self.stale = False
        elif _shaping(hook) != _shaping(self.hook):
            self.cancel()
        self.hook = hook


def _shaping(hook: Webhook) -> tuple[object, ...]:
    """What the messages of a webhook are made from (its URL and name are not)."""
    scope = None if hook.scope is None else hook.scope.metadata
    flags = (hook.include_internal_txs, hook.include_logs)
    return (hook.event_type, hook.chain_id, flags, hook.event_signatures, scope)
