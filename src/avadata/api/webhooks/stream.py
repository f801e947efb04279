"""`GET /v1/events/stream`: the same messages as the webhook POSTs, as Server-Sent Events, read
from the store and resumable.

Stage: api (reads only). Filter: a webhook of the caller's key (`webhookId`), or an ad hoc one
(`eventType=address_activity`, `chainId`, `addresses` comma-separated; any client). Each event
carries `id: <block>-<tx index>`; a client that reconnects with `Last-Event-ID` (or
`lastEventId`) gets the events strictly after it, so nothing is missed across a disconnect.
Without one the stream starts at `fromBlock`, else at the indexed head (what comes next).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import StreamingResponse

from avadata.api.deps import AppState, State
from avadata.api.errors import ERROR_RESPONSES, ApiError, bad_request, not_found
from avadata.api.webhooks import requests as rq
from avadata.api.webhooks.access import owner
from avadata.delivery import payload
from avadata.store.webhooks import events, registry
from avadata.store.webhooks.registry import BLOCK_DONE

router = APIRouter(tags=["Webhooks"], responses=ERROR_RESPONSES)

_EVENT_ID = re.compile(r"^(\d{1,18})-(\d{1,9})$")
_BATCH = 100
_KEEPALIVE_S = 15.0


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
        m = _EVENT_ID.match(last_id.strip())
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
    kind = rq.event_type({"eventType": event_type or rq.ADDRESS_ACTIVITY})
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


def _next_batch(st: AppState, f: _Filter, after: tuple[int, int]) -> list[events.TxEvent]:
    with st.engine.connect() as conn:
        head = events.indexed_head(conn, f.chain_id)
        if head is None:
            return []
        found = events.next_positions(conn, f.chain_id, f.addresses, after, head, _BATCH)
        return events.load_events(
            conn, f.chain_id, found, internals=f.include_internal_txs, logs=f.include_logs
        )


async def _frames(
    request: Request, st: AppState, f: _Filter, after: tuple[int, int]
) -> AsyncIterator[bytes]:
    idle = 0.0
    while not await request.is_disconnected():
        batch = await asyncio.to_thread(_next_batch, st, f, after)
        for ev in batch:
            data = payload.body(f, ev)
            yield b"id: %s\nevent: %s\ndata: %s\n\n" % (
                payload.event_id(ev).encode(),
                payload.EVENT_TYPE.encode(),
                data,
            )
            after = ev.position
        if batch:
            idle = 0.0
            continue
        await asyncio.sleep(st.settings.webhook_poll_s)
        idle += st.settings.webhook_poll_s
        if idle >= _KEEPALIVE_S:
            idle = 0.0
            yield b": keep-alive\n\n"


@router.get("/v1/events/stream", operation_id="streamEvents", response_class=StreamingResponse)
async def stream_events(
    request: Request,
    st: State,
    webhook_id: Annotated[str | None, Query(alias="webhookId")] = None,
    event_type: Annotated[str | None, Query(alias="eventType")] = None,
    chain_id: Annotated[str | None, Query(alias="chainId")] = None,
    addresses: Annotated[str | None, Query(description="comma-separated 0x addresses")] = None,
    from_block: Annotated[int | None, Query(alias="fromBlock", ge=0)] = None,
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID")] = None,
    last_event_query: Annotated[str | None, Query(alias="lastEventId")] = None,
) -> StreamingResponse:
    """avadata's own: the webhook messages as Server-Sent Events (docs/webhooks.md)."""
    f = await asyncio.to_thread(_filter, request, st, webhook_id, event_type, chain_id, addresses)
    after = await asyncio.to_thread(
        _start, st, f.chain_id, last_event_id or last_event_query, from_block
    )
    return StreamingResponse(
        _frames(request, st, f, after),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def _evm_only(what: str) -> ApiError:
    """The primary-network events go to webhooks only, for now (docs/webhooks.md)."""
    return bad_request(f"{what}: the event stream serves address_activity events only")
