"""A webhook's next messages: its events after its cursor, read from the store and shaped for
its event type (address_activity, primary_network_address_activity, validator_activity).

Stage: delivery. Reads the store through store/webhooks/, store/primary/webhook_events.py
and store/metrics/l1_reads.py (no SQL here); the shapes are payload.py's and primary/'s.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from avadata.delivery import payload
from avadata.delivery.primary import payload as primary_payload
from avadata.delivery.primary import thresholds
from avadata.store.metrics import l1_reads
from avadata.store.primary import webhook_events as primary_events
from avadata.store.types import Connection, Engine
from avadata.store.webhooks import events, registry
from avadata.store.webhooks.registry import Webhook


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One message at its position. `body` None: the event is one the webhook did not ask for
    (a sub-event it left out): nothing is sent and the cursor moves past it."""

    position: tuple[int, int]
    body: bytes | None


def bare(key: str) -> str:
    """A P/X address as the store keeps it: bech32 without the chain prefix (P-, X-, C-)."""
    return (key[2:] if key[:2].upper() in ("P-", "X-", "C-") else key).lower()


def keys(hook: Webhook) -> list[str]:
    """The metadata's keys of a primary-network webhook (addresses bare)."""
    assert hook.scope is not None
    given = [str(k) for k in json.loads(hook.scope.metadata).get("keys", ())]
    if hook.event_type == primary_payload.ADDRESS_ACTIVITY:
        return sorted({bare(k) for k in given})
    return sorted(set(given))


def next_messages(engine: Engine, hook: Webhook, limit: int) -> list[Outgoing]:
    """Up to `limit` messages after `hook`'s cursor, up to its chain's indexed head."""
    return next_messages_many(engine, [hook], limit)[hook.webhook_id]


def next_messages_many(
    engine: Engine, hooks: Sequence[Webhook], limit: int
) -> dict[str, list[Outgoing]]:
    """`next_messages` of each of `hooks` (by webhook id), in one connection. Webhooks that
    read the same rows (same chain, cursor, watched keys and options: e.g. many receivers of
    one address) share one read; only the messages, which name the webhook, are made per
    webhook."""
    out: dict[str, list[Outgoing]] = {}
    with engine.connect() as conn:
        heads: dict[int | str, int | None] = {}
        evm = [h.webhook_id for h in hooks if h.scope is None]
        addrs = registry.addresses_of(conn, evm) if evm else {}
        shared: dict[tuple[object, ...], _Read] = {}
        encoded: dict[tuple[object, ...], bytes] = {}
        for hook in hooks:
            chain = hook.follows
            if chain not in heads:
                heads[chain] = _head(conn, hook)
            head = heads[chain]
            if head is None or (head, registry.BLOCK_DONE) <= hook.cursor:
                out[hook.webhook_id] = []
                continue
            watched = addrs[hook.webhook_id] if hook.scope is None else keys(hook)
            if not watched:
                out[hook.webhook_id] = []
                continue
            key = _read_key(hook, watched)
            if key not in shared:
                shared[key] = _read(conn, hook, watched, head, limit)
            out[hook.webhook_id] = _shape(hook, watched, shared[key], encoded)
    return out


@dataclass(frozen=True, slots=True)
class _Read:
    """What the store gave for one read: the positions found and their events (EVM TxEvents
    or PrimaryEvents)."""

    found: list[tuple[int, int]]
    loaded: list[Any]
    # validator_activity with a balance threshold: its crossings in the read's range.
    crossed: list[tuple[tuple[int, int], thresholds.Crossing]] = dataclasses.field(
        default_factory=list
    )


def _head(conn: Connection, hook: Webhook) -> int | None:
    if hook.scope is None:
        return events.indexed_head(conn, hook.chain_id)
    return primary_events.primary_head(conn, hook.scope.chain)


def _read_key(hook: Webhook, watched: list[str]) -> tuple[object, ...]:
    """What a webhook's read depends on: two webhooks with one key read the same rows."""
    if hook.scope is None:
        flags = (hook.include_internal_txs, hook.include_logs)
        return ("evm", hook.chain_id, hook.cursor, tuple(watched), flags)
    return (hook.event_type, hook.scope.chain, hook.scope.metadata, hook.cursor)


def _read(conn: Connection, hook: Webhook, watched: list[str], head: int, limit: int) -> _Read:
    after = hook.cursor
    if hook.scope is None:
        found = events.next_positions(conn, hook.chain_id, watched, after, head, limit)
        evm = events.load_events(
            conn, hook.chain_id, found, internals=hook.include_internal_txs, logs=hook.include_logs
        )
        return _Read(found, evm)
    chain = hook.scope.chain
    if hook.event_type == primary_payload.ADDRESS_ACTIVITY:
        at = primary_events.address_positions(conn, chain, watched, after, head, limit)
        return _Read(at, primary_events.load_events(conn, chain, at))
    by = "subnet_id" if json.loads(hook.scope.metadata).get("keyType") == "subnetId" else "node_id"
    touches = primary_events.validator_touches(conn, by, watched, after, head, limit)
    loaded = primary_events.load_events(conn, "P", sorted(touches))
    for ev in loaded:
        ev.validations = touches[ev.position]
    found = sorted(touches)
    # A full page ends at its last tx: a crossing after it comes with the next page.
    upto = found[-1] if len(found) >= limit else (head, registry.BLOCK_DONE)
    return _Read(found, loaded, _crossed(conn, hook, by, watched, after, upto))


def _crossed(
    conn: Connection,
    hook: Webhook,
    by: str,
    watched: list[str],
    after: tuple[int, int],
    upto: tuple[int, int],
) -> list[tuple[tuple[int, int], thresholds.Crossing]]:
    """The balance threshold's crossings placed after `after` and at or before `upto`."""
    limit = thresholds.threshold(hook)
    until = None if limit is None else primary_events.p_block_time(conn, upto[0])
    if limit is None or until is None:
        return []
    validations = l1_reads.validations_of(conn, by, watched)
    if not validations:
        return []
    txs = l1_reads.validation_txs(conn, [v for v, _, _ in validations], upto[0])
    # Crossings up to the block before the cursor's are placed at or before it: not read.
    since = primary_events.p_block_time(conn, after[0] - 1) if after[0] > 0 else None
    found = [
        c
        for c in thresholds.crossings(validations, txs, limit, until)
        if since is None or c.at > since
    ]
    lo = max(after[0], 0)
    heights = [primary_events.first_p_block_at(conn, c.at, lo, upto[0]) for c in found]
    placed = thresholds.place(
        [c for c, h in zip(found, heights, strict=True) if h is not None],
        [h for h in heights if h is not None],
    )
    return [(pos, c) for pos, c in placed if after < pos <= upto]


def _shape(
    hook: Webhook, watched: list[str], read: _Read, encoded: dict[tuple[object, ...], bytes]
) -> list[Outgoing]:
    """The webhook's own messages of a read (pure; `encoded`: the EVM events' canonical
    `event` bytes by position and payload.shared_key, made once for all the webhooks of one
    call that get them, only the envelopes per webhook)."""
    if hook.scope is None:
        return [Outgoing(ev.position, _evm_body(hook, ev, encoded)) for ev in read.loaded]
    if hook.event_type == primary_payload.ADDRESS_ACTIVITY:
        out = [
            Outgoing(ev.position, primary_payload.address_activity(hook, ev, watched))
            for ev in read.loaded
        ]
    else:
        out = [
            Outgoing(ev.position, primary_payload.validator_activity(hook, ev))
            for ev in read.loaded
        ]
        if read.crossed:
            limit = thresholds.threshold(hook)
            assert limit is not None
            out += [Outgoing(p, thresholds.message(hook, p, c, limit)) for p, c in read.crossed]
            out.sort(key=lambda o: o.position)
    return _skipping(out, read.found)


def _evm_body(hook: Webhook, ev: events.TxEvent, encoded: dict[tuple[object, ...], bytes]) -> bytes:
    key = (ev.position, *payload.shared_key(hook))
    event = encoded.get(key)
    if event is None:
        event = encoded[key] = payload.event_bytes(hook, ev)
    return payload.body(hook, ev, event)


def _skipping(out: list[Outgoing], found: list[tuple[int, int]]) -> list[Outgoing]:
    """`out`, and a nothing-to-send at the last position `found` when no message is there (a
    DAG-era vertex's tx): the cursor moves past what it found, never stays behind it."""
    if found and (not out or out[-1].position < found[-1]):
        out.append(Outgoing(found[-1], None))
    return out
