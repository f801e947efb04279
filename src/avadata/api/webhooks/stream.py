"""`GET /v1/events/stream`: the same messages as the webhook POSTs, as Server-Sent Events, read
from the store and resumable.

Stage: api (reads only). Filter: a webhook of the caller's key (`webhookId`, any event type),
or an ad hoc one (any client): `eventType=address_activity` (the default), `chainId`,
`addresses` comma-separated; or a primary-network one (stream_primary.py). Each event carries
`id: <block>-<tx index>` (of the webhook's chain: the EVM chain, or P / X / C); a client that
reconnects with `Last-Event-ID` (or `lastEventId`) gets the events strictly after it, so
nothing is missed across a disconnect. Without one the stream starts at `fromBlock`, else at
the indexed head (what comes next).
It stays open while the client listens, unless `maxEvents` or `maxSeconds` ends it sooner (a
client that polls, or a test, reads a bounded stream and reconnects with the last id).
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.responses import StreamingResponse

from avadata.api.deps import AppState, State
from avadata.api.errors import ERROR_RESPONSES, bad_request, not_found
from avadata.api.webhooks import requests as rq
from avadata.api.webhooks import stream_primary
from avadata.api.webhooks.access import owner
from avadata.api.webhooks.requests import MAX_BLOCK
from avadata.api.webhooks.stream_primary import AdHoc, split
from avadata.delivery import payload, pending
from avadata.delivery.pending import Outgoing
from avadata.store.primary import webhook_events as primary_events
from avadata.store.webhooks import events, registry
from avadata.store.webhooks.registry import BLOCK_DONE, Webhook

router = APIRouter(tags=["Webhooks"], responses=ERROR_RESPONSES)

# ASCII digits only (\d would take other scripts' digits, which int() reads); a balance
# threshold's event sits before its block's txs: a negative tx index.
_EVENT_ID_PATTERN = "^([0-9]{1,18})-(-?[0-9]{1,9})$"
_EVENT_ID = re.compile(_EVENT_ID_PATTERN)
_BATCH = 100
_KEEPALIVE_S = 15.0
_MAX_SECONDS = 86_400.0


@dataclass(frozen=True, slots=True)
class _Filter:
    webhook_id: str
    chain_id: int
    addresses: tuple[str, ...]
    # Named as on registry.Webhook: both are a payload.Subscriber.
    include_internal_txs: bool
    include_logs: bool
    event_signatures: tuple[str, ...]


Filter = _Filter | Webhook  # an EVM filter, or a primary-network webhook (stored or ad hoc)


def _start(st: AppState, f: Filter, last_id: str | None, from_block: int | None) -> tuple[int, int]:
    if last_id:
        m = _EVENT_ID.fullmatch(last_id)
        if m is None:
            raise bad_request(f"Last-Event-ID: must be <block>-<tx index> (got {last_id!r})")
        return int(m.group(1)), int(m.group(2))
    if from_block is not None:
        return from_block - 1, BLOCK_DONE
    with st.engine.connect() as conn:
        if isinstance(f, Webhook):
            assert f.scope is not None
            head = primary_events.primary_head(conn, f.scope.chain)
        else:
            head = events.indexed_head(conn, f.chain_id)
    return (-1 if head is None else head), BLOCK_DONE


def _filter(request: Request, st: AppState, webhook_id: str | None, q: AdHoc) -> Filter:
    if webhook_id is not None:
        hook = registry.get(st.engine, owner(request), webhook_id)
        if hook is None:
            raise not_found(f"webhookId: no webhook {webhook_id!r} of this API key")
        if hook.scope is not None:
            return hook
        addrs = registry.addresses(st.engine, hook.webhook_id)
        return _Filter(
            hook.webhook_id,
            hook.chain_id,
            tuple(addrs),
            hook.include_internal_txs,
            hook.include_logs,
            hook.event_signatures,
        )
    kind = rq.event_type({"eventType": q.event_type or rq.ADDRESS_ACTIVITY})
    if kind != rq.ADDRESS_ACTIVITY:
        return stream_primary.ad_hoc(st, kind, q)
    if q.chain_id is None:
        raise bad_request("chainId: required without webhookId")
    if not q.addresses:
        raise bad_request("addresses: required without webhookId (comma-separated)")
    listed = rq.addresses(split(q.addresses), "addresses")
    rq.at_most(len(set(listed)), st.settings.webhook_max_addresses, "addresses")
    with st.engine.connect() as conn:
        chain = st.chains.get(conn, q.chain_id)
    if chain is None:
        raise bad_request(f"chainId: unknown chain {q.chain_id!r} (see GET /v1/chains)")
    return _Filter("", chain.chain_id, tuple(listed), True, True, ())


def _next_batch(st: AppState, f: Filter, after: tuple[int, int], most: int) -> list[Outgoing]:
    """The messages after `after` (a primary webhook's: a None body where a sub-event it
    left out sits, passed over)."""
    if isinstance(f, Webhook):
        return pending.next_messages(st.engine, dataclasses.replace(f, cursor=after), most)
    with st.engine.connect() as conn:
        head = events.indexed_head(conn, f.chain_id)
        if head is None:
            return []
        found = events.next_positions(conn, f.chain_id, f.addresses, after, head, most)
        loaded = events.load_events(
            conn, f.chain_id, found, internals=f.include_internal_txs, logs=f.include_logs
        )
    return [Outgoing(ev.position, payload.body(f, ev)) for ev in loaded]


@dataclass(frozen=True, slots=True)
class _Bounds:
    """When the stream ends by itself: after `events` events or `seconds` (None: never)."""

    events: int | None
    seconds: float | None


async def _frames(
    request: Request, st: AppState, f: Filter, after: tuple[int, int], bounds: _Bounds
) -> AsyncIterator[bytes]:
    kind = (f.event_type if isinstance(f, Webhook) else payload.EVENT_TYPE).encode()
    deadline = None if bounds.seconds is None else time.monotonic() + bounds.seconds
    left = bounds.events
    idle = 0.0
    while not await request.is_disconnected():
        most = _BATCH if left is None else min(_BATCH, left)
        batch = await asyncio.to_thread(_next_batch, st, f, after, most)
        for ev in batch:
            after = ev.position
            if ev.body is not None:
                event_id = b"%d-%d" % ev.position
                yield b"id: %s\nevent: %s\ndata: %s\n\n" % (event_id, kind, ev.body)
                left = None if left is None else left - 1
        remaining = None if deadline is None else deadline - time.monotonic()
        if left == 0 or (remaining is not None and remaining <= 0):
            return
        if batch:
            idle = 0.0
            continue
        pause = st.settings.webhook_poll_s
        await asyncio.sleep(pause if remaining is None else min(pause, remaining))
        idle += pause
        if idle >= _KEEPALIVE_S:
            idle = 0.0
            yield b": keep-alive\n\n"


_EVENT_ID_DOC = "An event's id, <block>-<tx index>: the stream goes on strictly after it"
# Each event of the stream (OpenAPI 3.1: the media type's schema describes one event).
_EVENT = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "pattern": _EVENT_ID_PATTERN},
        "event": {"type": "string", "enum": list(rq.EVENT_TYPES)},
        "data": {"type": "string", "description": "the webhook message, canonical JSON"},
    },
    "required": ["id", "event", "data"],
}
_SSE = {"text/event-stream": {"schema": _EVENT}}
# The parameters whose rules the document states (patterns, bounds).
FromBlock = Annotated[int | None, Query(alias="fromBlock", ge=0, le=MAX_BLOCK)]
# A header is a string or absent, never null: its schema says so.
_EVENT_ID_STRING = {"anyOf": [{"type": "string", "pattern": _EVENT_ID_PATTERN}]}
LastEventHeader = Annotated[
    str | None,
    Header(
        alias="Last-Event-ID",
        pattern=_EVENT_ID_PATTERN,
        description=_EVENT_ID_DOC,
        json_schema_extra=_EVENT_ID_STRING,
    ),
]
LastEventQuery = Annotated[
    str | None, Query(alias="lastEventId", pattern=_EVENT_ID_PATTERN, description=_EVENT_ID_DOC)
]
MaxEvents = Annotated[
    int | None, Query(alias="maxEvents", ge=1, description="End the stream after this many events")
]
MaxSeconds = Annotated[
    float | None,
    Query(alias="maxSeconds", gt=0, le=_MAX_SECONDS, description="End the stream after this long"),
]


@router.get(
    "/v1/events/stream",
    operation_id="streamEvents",
    response_class=StreamingResponse,
    responses={200: {"description": "Server-Sent Events", "content": _SSE}},
)
async def stream_events(
    request: Request,
    st: State,
    q: Annotated[AdHoc, Depends()],
    webhook_id: Annotated[str | None, Query(alias="webhookId")] = None,
    from_block: FromBlock = None,
    last_event_id: LastEventHeader = None,
    last_event_query: LastEventQuery = None,
    max_events: MaxEvents = None,
    max_seconds: MaxSeconds = None,
) -> StreamingResponse:
    """avadata's own: the webhook messages as Server-Sent Events (docs/webhooks.md); open while
    the client listens, unless maxEvents or maxSeconds (seconds) ends it."""
    f = await asyncio.to_thread(_filter, request, st, webhook_id, q)
    after = await asyncio.to_thread(_start, st, f, last_event_id or last_event_query, from_block)
    return StreamingResponse(
        _frames(request, st, f, after, _Bounds(max_events, max_seconds)),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
