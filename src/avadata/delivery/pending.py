"""A webhook's next messages: its events after its cursor, read from the store and shaped for
its event type (address_activity, primary_network_address_activity, validator_activity).

Stage: delivery. Reads the store through store/webhooks/ (no SQL here); the shapes are
payload.py's and primary_payload.py's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from avadata.delivery import payload
from avadata.delivery.primary import payload as primary_payload
from avadata.store.primary import webhook_events as primary_events
from avadata.store.types import Engine
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
    with engine.connect() as conn:
        if hook.scope is None:
            head = events.indexed_head(conn, hook.chain_id)
        else:
            head = primary_events.primary_head(conn, hook.scope.chain)
        if head is None or (head, registry.BLOCK_DONE) <= hook.cursor:
            return []
        if hook.scope is None:
            addrs = registry.addresses(conn, hook.webhook_id)
            if not addrs:
                return []
            found = events.next_positions(conn, hook.chain_id, addrs, hook.cursor, head, limit)
            evm = events.load_events(
                conn,
                hook.chain_id,
                found,
                internals=hook.include_internal_txs,
                logs=hook.include_logs,
            )
            return [Outgoing(ev.position, payload.body(hook, ev)) for ev in evm]
        watched = keys(hook)
        if not watched:
            return []
        if hook.event_type == primary_payload.ADDRESS_ACTIVITY:
            chain = hook.scope.chain
            at = primary_events.address_positions(conn, chain, watched, hook.cursor, head, limit)
            loaded = primary_events.load_events(conn, chain, at)
            out = [
                Outgoing(ev.position, primary_payload.address_activity(hook, ev, watched))
                for ev in loaded
            ]
            return _skipping(out, at)
        by = (
            "subnet_id"
            if json.loads(hook.scope.metadata).get("keyType") == "subnetId"
            else "node_id"
        )
        touches = primary_events.validator_touches(conn, by, watched, hook.cursor, head, limit)
        loaded = primary_events.load_events(conn, "P", sorted(touches))
    for ev in loaded:
        ev.validations = touches[ev.position]
    out = [Outgoing(ev.position, primary_payload.validator_activity(hook, ev)) for ev in loaded]
    return _skipping(out, sorted(touches))


def _skipping(out: list[Outgoing], found: list[tuple[int, int]]) -> list[Outgoing]:
    """`out`, and a nothing-to-send at the last position `found` when no message is there (a
    DAG-era vertex's tx): the cursor moves past what it found, never stays behind it."""
    if found and (not out or out[-1].position < found[-1]):
        out.append(Outgoing(found[-1], None))
    return out
