"""`GET /v1/events/stream`: the same messages as the webhook POSTs, as Server-Sent Events, read
from the store and resumable.

Stage: api (reads only). Filter: a webhook of the caller's key (`webhookId`), or an ad hoc one
(`eventType=address_activity`, `chainId`, `addresses` comma-separated; any client). Each event
carries `id: <block>-<tx index>`; a client that reconnects with `Last-Event-ID` (or
`lastEventId`) gets the events strictly after it, so nothing is missed across a disconnect.
Without one the stream starts at `fromBlock`, else at the indexed head (what comes next).
It stays open while the client listens, unless `maxEvents` or `maxSeconds` ends it sooner (a
client that polls, or a test, reads a bounded stream and reconnects with the last id).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import StreamingResponse

from avadata.api.deps import AppState, State
from avadata.api.errors import ERROR_RESPONSES, ApiError, bad_request, not_found
from avadata.api.patterns import evm_addresses, one_of
from avadata.api.webhooks import requests as rq
from avadata.api.webhooks.access import owner
from avadata.api.webhooks.requests import MAX_BLOCK
from avadata.delivery import payload
from avadata.store.webhooks import events, registry
from avadata.store.webhooks.registry import BLOCK_DONE

router = APIRouter(tags=["Webhooks"], responses=ERROR_RESPONSES)

# ASCII digits only (\d would take other scripts' digits, which int() reads).
_EVENT_ID_PATTERN = "^([0-9]{1,18})-([0-9]{1,9})$"
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


def _start(
    st: AppState, chain_id: int, last_id: str | None, from_block: int | None
) -> tuple[int, int]:
    if last_id:
        m = _EVENT_ID.fullmatch(last_id)
        if m is None:
            raise bad_request(f"Last-Event-ID: must be <block>-<tx index> (got {last_id!r})")
        return int(m.group(1)), int(m.group(2))
    if from_block is not None:
        return from_block - 1, BLOCK_DONE
    with st.engine.connect() as conn:
        head = events.indexed_head(conn, chain_id)
    return (-1 if head is None else head), BLOCK_DONE


def _filter(
    request: Request,
    st: AppState,
    webhook_id: str | None,
    event_type: str | None,
    chain_id: str | None,
    addresses: str | None,
) -> _Filter:
    if webhook_id is not None:
        hook = registry.get(st.engine, owner(request), webhook_id)
        if hook is None:
            raise not_found(f"webhookId: no webhook {webhook_id!r} of this API key")
        if hook.scope is not None:
            raise _evm_only(f"webhookId: a {hook.event_type} webhook")
        addrs = registry.addresses(st.engine, hook.webhook_id)
        return _Filter(
            hook.webhook_id,
            hook.chain_id,
            tuple(addrs),
            hook.include_internal_txs,
            hook.include_logs,
            hook.event_signatures,
        )
    kind = rq.ADDRESS_ACTIVITY if event_type is None else rq.event_type({"eventType": event_type})
    if kind != rq.ADDRESS_ACTIVITY:
        raise _evm_only(f"eventType: {kind}")
    if chain_id is None:
        raise bad_request("chainId: required without webhookId")
    if not addresses:
        raise bad_request("addresses: required without webhookId (comma-separated)")
    listed = rq.addresses([a.strip() for a in addresses.split(",")], "addresses")
    rq.at_most(len(set(listed)), st.settings.webhook_max_addresses, "addresses")
    with st.engine.connect() as conn:
        chain = st.chains.get(conn, chain_id)
    if chain is None:
        raise bad_request(f"chainId: unknown chain {chain_id!r} (see GET /v1/chains)")
    return _Filter("", chain.chain_id, tuple(listed), True, True, ())


def _next_batch(
    st: AppState, f: _Filter, after: tuple[int, int], most: int
) -> list[events.TxEvent]:
    with st.engine.connect() as conn:
        head = events.indexed_head(conn, f.chain_id)
        if head is None:
            return []
        found = events.next_positions(conn, f.chain_id, f.addresses, after, head, most)
        return events.load_events(
            conn, f.chain_id, found, internals=f.include_internal_txs, logs=f.include_logs
        )


@dataclass(frozen=True, slots=True)
class _Bounds:
    """When the stream ends by itself: after `events` events or `seconds` (None: never)."""

    events: int | None
    seconds: float | None


async def _frames(
    request: Request, st: AppState, f: _Filter, after: tuple[int, int], bounds: _Bounds
) -> AsyncIterator[bytes]:
    deadline = None if bounds.seconds is None else time.monotonic() + bounds.seconds
    left = bounds.events
    idle = 0.0
    while not await request.is_disconnected():
        most = _BATCH if left is None else min(_BATCH, left)
        batch = await asyncio.to_thread(_next_batch, st, f, after, most)
        for ev in batch:
            data = payload.body(f, ev)
            yield b"id: %s\nevent: %s\ndata: %s\n\n" % (
                payload.event_id(ev).encode(),
                payload.EVENT_TYPE.encode(),
                data,
            )
            after = ev.position
        if left is not None:
            left -= len(batch)
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
        "event": {"type": "string", "enum": [payload.EVENT_TYPE]},
        "data": {"type": "string", "description": "the webhook message, canonical JSON"},
    },
    "required": ["id", "event", "data"],
}
_SSE = {"text/event-stream": {"schema": _EVENT}}
# The parameters whose rules the document states (patterns, bounds, the one event type).
EventType = Annotated[
    str | None,
    Query(alias="eventType", json_schema_extra=one_of([rq.ADDRESS_ACTIVITY], optional=True)),
]
Addresses = Annotated[
    str | None,
    Query(
        pattern=evm_addresses(),
        description="Comma-separated 0x addresses (at most the per-webhook limit); "
        "chainId and addresses are required without webhookId",
    ),
]
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
    webhook_id: Annotated[str | None, Query(alias="webhookId")] = None,
    event_type: EventType = None,
    chain_id: Annotated[str | None, Query(alias="chainId")] = None,
    addresses: Addresses = None,
    from_block: FromBlock = None,
    last_event_id: LastEventHeader = None,
    last_event_query: LastEventQuery = None,
    max_events: MaxEvents = None,
    max_seconds: MaxSeconds = None,
) -> StreamingResponse:
    """avadata's own: the webhook messages as Server-Sent Events (docs/webhooks.md); open while
    the client listens, unless maxEvents or maxSeconds (seconds) ends it."""
    f = await asyncio.to_thread(_filter, request, st, webhook_id, event_type, chain_id, addresses)
    after = await asyncio.to_thread(
        _start, st, f.chain_id, last_event_id or last_event_query, from_block
    )
    return StreamingResponse(
        _frames(request, st, f, after, _Bounds(max_events, max_seconds)),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def _evm_only(what: str) -> ApiError:
    """The primary-network events go to webhooks only, for now (docs/webhooks.md)."""
    return bad_request(f"{what}: the event stream serves address_activity events only")
