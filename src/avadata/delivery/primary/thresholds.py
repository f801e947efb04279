"""validator_activity's `l1_validator_balance_threshold`: an L1 validator's fee balance fell
below the webhook's `l1ValidatorFeeBalanceThreshold` (nAVAX), and where in the P-chain's order
that event goes.

Stage: delivery; pure (pending.py reads the rows and the block heights). The balance is
replayed from the validation's P-chain txs (metrics/l1_fees.py): it falls by the fee every
second the validator pays, so it crosses the threshold between two blocks, not in a tx. The
event is placed before the first tx of the first P-chain block at or after that second:
position (height, -k), so it comes after every tx that came before the crossing and a cursor
can stand on it. Several crossings before one block take -n .. -1 in the order they happened.

Invariant: a crossing's position and message id never change once the block after it is
indexed (nothing later can change a balance before it), so a message sent again is the same.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from avadata.delivery.payload import NAMESPACE, canonical
from avadata.metrics import l1_fees
from avadata.store.webhooks.registry import Webhook

SUB_EVENT = "l1_validator_balance_threshold"
THRESHOLD = "l1ValidatorFeeBalanceThreshold"


@dataclass(frozen=True, slots=True)
class Crossing:
    at: int  # the second the balance fell below the threshold
    balance: int  # the balance then (nAVAX)
    validation_id: str
    subnet_id: str
    node_id: str


def threshold(hook: Webhook) -> int | None:
    """The webhook's threshold, when it asked for the sub-event (None otherwise)."""
    assert hook.scope is not None
    meta = json.loads(hook.scope.metadata)
    subs = (meta.get("subEvents") or {}).get("validatorActivitySubEvents") or ()
    value = meta.get(THRESHOLD)
    return int(value) if SUB_EVENT in subs and value is not None else None


def crossings(
    validations: Sequence[tuple[str, str, str]],
    txs: Sequence[tuple[str, int, str, str]],
    limit: int,
    until: int,
) -> list[Crossing]:
    """Every time up to `until` a balance of `validations` ((validation ID, subnet ID, node
    ID)) fell below `limit`, replayed from their `txs` (l1_reads.validation_txs rows), in
    time order (then by validation ID)."""
    events: dict[str, list[l1_fees.Event]] = {}
    for vid, ts, kind, body in txs:
        events.setdefault(vid, []).append(l1_fees.events_of(vid, ts, kind, json.loads(body)))
    out = []
    for vid, subnet, node in validations:
        replayed = l1_fees.replay(events.get(vid, ()), until, threshold=limit)
        out += [Crossing(at, left, vid, subnet, node) for at, left in replayed.crossings]
    return sorted(out, key=lambda c: (c.at, c.validation_id))


def place(
    found: Sequence[Crossing], heights: Sequence[int]
) -> list[tuple[tuple[int, int], Crossing]]:
    """Each crossing at its position: (height of the first block at or after it, -k), the
    crossings before one block numbered -n .. -1 in order. `heights` match `found`."""
    count: dict[int, int] = {}
    for h in heights:
        count[h] = count.get(h, 0) + 1
    seen: dict[int, int] = {}
    out = []
    for c, h in zip(found, heights, strict=True):
        seen[h] = seen.get(h, 0) + 1
        out.append(((h, seen[h] - count[h] - 1), c))
    return out


def message(hook: Webhook, position: tuple[int, int], c: Crossing, limit: int) -> bytes:
    """The message of one crossing (the envelope as every validator_activity message's)."""
    assert hook.scope is not None
    event = {
        "eventType": SUB_EVENT,
        "nodeIds": [c.node_id],
        "subnetIds": [c.subnet_id],
        "validationIds": [c.validation_id],
        "balance": str(c.balance),
        "threshold": str(limit),
        "timestamp": c.at,
        # The first P-chain block at or after the crossing: where it was seen.
        "blockNumber": str(position[0]),
        "network": hook.scope.network,
    }
    key = f"{hook.webhook_id}:P:{SUB_EVENT}:{c.validation_id}:{c.at}"
    msg = {
        "webhookId": hook.webhook_id,
        "eventType": hook.event_type,
        "messageId": str(uuid.uuid5(NAMESPACE, key)),
        "event": event,
    }
    return canonical(msg)
