"""The ten /v1/webhooks operations of the hosted spec, and our rewind.

Stage: api. Each operation names its owner (access.owner): another key's webhook answers 404,
exactly as a missing one, so ids cannot be probed. Writes go through access.writer; the delivery
worker (delivery/) sends what the webhooks select. Shapes: shapes.py; checks: requests.py;
the documented bodies are the reference's own schemas (api/primary/openapi.py).
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Path, Query, Request

from avadata.api.deps import State, read_conn
from avadata.api.errors import ERROR_RESPONSES, bad_request, not_found
from avadata.api.paging import PageSize, PageToken, cut, page, with_token
from avadata.api.primary.openapi import ok
from avadata.api.webhooks import primary
from avadata.api.webhooks import requests as rq
from avadata.api.webhooks.access import owner, writer
from avadata.api.webhooks.shapes import webhook_body
from avadata.store.webhooks import registry
from avadata.store.webhooks.registry import NewWebhook, Webhook

router = APIRouter(tags=["Webhooks"], responses=ERROR_RESPONSES)

IdPath = Annotated[str, Path(alias="id", description="The webhook identifier.")]
AnyBody = Annotated[Any, Body()]
# A webhook, as the reference answers it: one of its three kinds, told apart by eventType.
_WEBHOOK = (
    "EVMAddressActivityResponse",
    "PrimaryNetworkAddressActivityResponse",
    "ValidatorActivityResponse",
)


def _own(request: Request, st: State, webhook_id: str) -> tuple[str, Webhook]:
    who = owner(request)
    hook = registry.get(st.engine, who, webhook_id)
    if hook is None:
        raise not_found(f"id: no webhook {webhook_id!r} of this API key")
    return who, hook


def _evm_own(request: Request, st: State, webhook_id: str) -> tuple[str, Webhook]:
    """`_own`, for the address operations: "only valid for EVM activity webhooks" (spec)."""
    who, hook = _own(request, st, webhook_id)
    if hook.scope is not None:
        raise bad_request(
            f"id: {hook.event_type} webhooks watch metadata.keys, not addresses (the address "
            "operations are for address_activity webhooks)"
        )
    return who, hook


def _answer(request: Request, st: State, hook: Webhook | None) -> dict[str, Any]:
    if hook is None:
        raise not_found("id: no webhook of this API key")
    return _body(st, hook)


def _body(st: State, hook: Webhook) -> dict[str, Any]:
    if hook.scope is not None:
        return primary.webhook_body(hook)
    return webhook_body(hook, registry.addresses(st.engine, hook.webhook_id))


@router.post(
    "/v1/webhooks",
    status_code=201,
    operation_id="createWebhook",
    responses=ok(*_WEBHOOK, status=201),
    response_model=None,
    openapi_extra=rq.documented("createWebhook"),
)
def create_webhook(request: Request, st: State, body: AnyBody = None) -> dict[str, Any]:
    who = owner(request)
    kind = rq.event_type(body)
    if kind != rq.ADDRESS_ACTIVITY:
        new = primary.new_webhook(st, kind, body)
        return _answer(
            request, st, registry.create(writer(request, st), who, new, str(uuid.uuid4()))
        )
    req = rq.parse(rq.EvmAddressActivityRequest, body)
    s = st.settings
    url = rq.url(req.url, s.refuses_private_targets())
    addrs = rq.addresses(req.metadata.addresses, "metadata.addresses")
    rq.at_most(len(set(addrs)), s.webhook_max_addresses, "metadata.addresses")
    with read_conn(st) as conn:
        chain = st.chains.get(conn, req.chainId)
    if chain is None:
        raise bad_request(f"chainId: unknown chain {req.chainId!r} (see GET /v1/chains)")
    new = NewWebhook(
        event_type=req.eventType,
        chain_id=chain.chain_id,
        url=url,
        name=req.name or "",
        description=req.description or "",
        include_internal_txs=req.includeInternalTxs,
        include_logs=req.includeLogs,
        event_signatures=rq.topics(req.metadata.eventSignatures),
        addresses=tuple(addrs),
    )
    hook = registry.create(writer(request, st), who, new, str(uuid.uuid4()))
    return _answer(request, st, hook)


@router.get(
    "/v1/webhooks",
    operation_id="listWebhooks",
    responses=ok("ListWebhooksResponse"),
    response_model=None,
)
def list_webhooks(
    request: Request,
    st: State,
    page_token: PageToken = None,
    page_size: PageSize = 10,
    status: Annotated[Literal["active", "inactive"] | None, Query()] = None,
) -> dict[str, Any]:
    who = owner(request)
    pg = page(st, "webhooks", {"status": status}, page_token, page_size, arity=2)
    after = None if pg.after is None else (int(pg.after[0]), str(pg.after[1]))
    hooks = registry.list_page(st.engine, who, status, after, page_size + 1)
    served, token = cut(hooks, pg, lambda h: (h.created_at_ms, h.webhook_id))
    bodies = [_body(st, h) for h in served]
    return with_token({"webhooks": bodies}, token)


@router.post(
    "/v1/webhooks:generateOrRotateSharedSecret",
    status_code=201,
    operation_id="generateOrRotateSharedSecret",
    responses=ok("SharedSecretsResponse", status=201),
    response_model=None,
)
def rotate_secret(request: Request, st: State) -> dict[str, str]:
    return {"secret": registry.rotate_secret(writer(request, st), owner(request))}


@router.get(
    "/v1/webhooks:getSharedSecret",
    operation_id="getSharedSecret",
    responses=ok("SharedSecretsResponse"),
    response_model=None,
)
def get_secret(request: Request, st: State) -> dict[str, str]:
    who = owner(request)
    found = registry.read_secret(st.engine, who)
    return {"secret": found or registry.ensure_secret(writer(request, st), who)}


@router.get(
    "/v1/webhooks/{id}",
    operation_id="getWebhook",
    responses=ok(*_WEBHOOK),
    response_model=None,
)
def get_webhook(request: Request, st: State, webhook_id: IdPath) -> dict[str, Any]:
    return _answer(request, st, _own(request, st, webhook_id)[1])


@router.delete(
    "/v1/webhooks/{id}",
    operation_id="deactivateWebhook",
    responses=ok(*_WEBHOOK),
    response_model=None,
)
def deactivate_webhook(request: Request, st: State, webhook_id: IdPath) -> dict[str, Any]:
    who, _ = _own(request, st, webhook_id)
    return _answer(
        request, st, registry.update_fields(writer(request, st), who, webhook_id, status="inactive")
    )


@router.patch(
    "/v1/webhooks/{id}",
    operation_id="updateWebhook",
    openapi_extra=rq.documented("updateWebhook"),
    responses=ok(*_WEBHOOK),
    response_model=None,
)
def update_webhook(
    request: Request, st: State, webhook_id: IdPath, body: AnyBody = None
) -> dict[str, Any]:
    who, _ = _own(request, st, webhook_id)
    req = rq.parse(rq.UpdateWebhookRequest, body)
    columns = {
        "name": req.name,
        "description": req.description,
        "status": req.status,
        "include_internal_txs": req.includeInternalTxs,
        "include_logs": req.includeLogs,
    }
    if req.url is not None:
        columns["url"] = rq.url(req.url, st.settings.refuses_private_targets())
    values = {k: v for k, v in columns.items() if v is not None}
    return _answer(
        request, st, registry.update_fields(writer(request, st), who, webhook_id, **values)
    )


def _change_addresses(
    request: Request, st: State, webhook_id: str, body: Any, *, add: bool
) -> dict[str, Any]:
    """Add or remove the addresses of a body's `addresses`; an addition may not take the
    webhook past the configured maximum."""
    who, _ = _evm_own(request, st, webhook_id)
    req = rq.parse(rq.AddressesChangeRequest, body)
    addrs = rq.addresses(req.addresses, "addresses")
    if add:
        now = set(registry.addresses(st.engine, webhook_id))
        rq.at_most(len(now | set(addrs)), st.settings.webhook_max_addresses, "addresses")
    added, removed = (addrs, []) if add else ([], addrs)
    changed = registry.change_addresses(writer(request, st), who, webhook_id, added, removed)
    return _answer(request, st, changed)


@router.patch(
    "/v1/webhooks/{id}/addresses",
    operation_id="addAddressesToWebhook",
    openapi_extra=rq.documented("addresses"),
    responses=ok("EVMAddressActivityResponse"),
    response_model=None,
)
def add_addresses(
    request: Request, st: State, webhook_id: IdPath, body: AnyBody = None
) -> dict[str, Any]:
    return _change_addresses(request, st, webhook_id, body, add=True)


@router.delete(
    "/v1/webhooks/{id}/addresses",
    operation_id="removeAddressesFromWebhook",
    openapi_extra=rq.documented("addresses"),
    responses=ok("EVMAddressActivityResponse"),
    response_model=None,
)
def remove_addresses(
    request: Request, st: State, webhook_id: IdPath, body: AnyBody = None
) -> dict[str, Any]:
    return _change_addresses(request, st, webhook_id, body, add=False)


@router.get(
    "/v1/webhooks/{id}/addresses",
    operation_id="getAddressesFromWebhook",
    responses=ok("ListWebhookAddressesResponse"),
    response_model=None,
)
def list_addresses(
    request: Request,
    st: State,
    webhook_id: IdPath,
    page_token: PageToken = None,
    page_size: PageSize = 10,
) -> dict[str, Any]:
    _evm_own(request, st, webhook_id)
    pg = page(st, "webhook_addresses", {"id": webhook_id}, page_token, page_size, arity=1)
    every = registry.addresses(st.engine, webhook_id)
    start = 0 if pg.after is None else sum(1 for a in every if a <= str(pg.after[0]))
    served, token = cut(every[start : start + page_size + 1], pg, lambda a: (a,))
    return with_token({"addresses": list(served), "totalAddresses": len(every)}, token)


@router.post(
    "/v1/webhooks/{id}/rewind",
    operation_id="rewindWebhook",
    openapi_extra=rq.documented("rewindWebhook"),
    responses=ok(*_WEBHOOK),
    response_model=None,
)
def rewind_webhook(
    request: Request, st: State, webhook_id: IdPath, body: AnyBody = None
) -> dict[str, Any]:
    """avadata's own: deliver again from the first transaction of `blockNumber` on (the
    messages keep their messageId)."""
    who, _ = _own(request, st, webhook_id)
    req = rq.parse(rq.RewindRequest, body)
    if not 0 <= req.blockNumber <= rq.MAX_BLOCK:
        raise bad_request(f"blockNumber: must be 0 to {rq.MAX_BLOCK} (got {req.blockNumber})")
    return _answer(
        request, st, registry.rewind(writer(request, st), who, webhook_id, req.blockNumber)
    )
