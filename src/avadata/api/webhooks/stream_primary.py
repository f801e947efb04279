"""The event stream's ad hoc filters: the query parameters, and the primary-network ones
(`primary_network_address_activity`, `validator_activity`) checked as a webhook's creation
request is, then held as a webhook that is never stored.

Stage: api (no I/O beyond the checks' one-row reads). Query parameters stand for the request's
members: `addresses` (P-/X-/C- bech32) or `nodeIds` / `subnetIds` for `metadata.keys`,
`subEvents` for `metadata.subEvents.*` (every served sub-event but the threshold's when
absent), `network`, `chainId`, `l1ValidatorFeeBalanceThreshold`; a 400 names the query
parameter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Query

from avadata.api.deps import AppState
from avadata.api.errors import ApiError, bad_request
from avadata.api.patterns import one_of
from avadata.api.webhooks import primary
from avadata.api.webhooks.requests import ADDRESS_SUB_EVENTS, EVENT_TYPES, VALIDATOR_SUB_EVENTS
from avadata.store.webhooks.registry import BLOCK_DONE, Webhook

# A creation request needs a receiver; a stream has none: this one passes every URL check and
# is never called.
_NO_RECEIVER = "https://stream.invalid/"
_SUBS = "metadata.subEvents."


@dataclass
class AdHoc:
    """The stream's ad hoc filter, as query parameters (a FastAPI dependency)."""

    event_type: Annotated[
        str | None, Query(alias="eventType", json_schema_extra=one_of(EVENT_TYPES, optional=True))
    ] = None
    chain_id: Annotated[str | None, Query(alias="chainId")] = None
    addresses: Annotated[
        str | None, Query(description="comma-separated 0x, or P-/X-/C- bech32, addresses")
    ] = None
    network: Annotated[
        str | None, Query(description="primary-network events: mainnet, fuji, ...")
    ] = None
    node_ids: Annotated[str | None, Query(alias="nodeIds")] = None
    subnet_ids: Annotated[str | None, Query(alias="subnetIds")] = None
    sub_events: Annotated[str | None, Query(alias="subEvents")] = None
    threshold: Annotated[
        str | None,
        Query(
            alias="l1ValidatorFeeBalanceThreshold",
            description="validator_activity: nAVAX, for l1_validator_balance_threshold",
        ),
    ] = None


def split(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def ad_hoc(st: AppState, kind: str, q: AdHoc) -> Webhook:
    """The primary-network filter of `q` for event type `kind`, as an unsaved webhook (its
    cursor is the stream's to set)."""
    if q.network is None:
        raise bad_request(f"network: required for {kind} without webhookId")
    if kind == "validator_activity":
        body, keys = _validator_body(q)
    else:
        body, keys = _address_body(q)
    body.update(eventType=kind, url=_NO_RECEIVER, network=q.network)
    try:
        new = primary.new_webhook(st, kind, body)
    except ApiError as exc:
        raise _renamed(exc, keys) from None
    return Webhook(
        webhook_id="",
        owner="",
        event_type=kind,
        chain_id=0,
        url="",
        name="",
        description="",
        status="active",
        created_at_ms=0,
        include_internal_txs=False,
        include_logs=False,
        event_signatures=(),
        cursor=(-1, BLOCK_DONE),
        scope=new.scope,
    )


def _validator_body(q: AdHoc) -> tuple[dict[str, Any], str]:
    if bool(q.node_ids) == bool(q.subnet_ids):
        raise bad_request("nodeIds: give nodeIds or subnetIds (comma-separated), not both")
    key_type, keys, name = (
        ("nodeId", q.node_ids, "nodeIds") if q.node_ids else ("subnetId", q.subnet_ids, "subnetIds")
    )
    subs = split(q.sub_events) if q.sub_events is not None else list(VALIDATOR_SUB_EVENTS)
    meta: dict[str, Any] = {
        "keyType": key_type,
        "keys": split(keys or ""),
        "subEvents": {"validatorActivitySubEvents": subs},
    }
    if q.threshold is not None:
        meta["l1ValidatorFeeBalanceThreshold"] = q.threshold
    return {"metadata": meta}, name


def _address_body(q: AdHoc) -> tuple[dict[str, Any], str]:
    if not q.chain_id:
        raise bad_request("chainId: required without webhookId (p-chain, x-chain or c-chain)")
    if not q.addresses:
        raise bad_request("addresses: required without webhookId (comma-separated)")
    subs = split(q.sub_events) if q.sub_events is not None else list(ADDRESS_SUB_EVENTS)
    meta = {
        "keyType": "addresses",
        "keys": split(q.addresses),
        "subEvents": {"addressActivitySubEvents": subs},
    }
    return {"chainId": q.chain_id, "metadata": meta}, "addresses"


def _renamed(exc: ApiError, keys: str) -> ApiError:
    """The creation request's error, naming the query parameter that stood for the member."""
    message = exc.message
    for member in ("addressActivitySubEvents", "validatorActivitySubEvents"):
        message = message.replace(_SUBS + member, "subEvents")
    message = message.replace("metadata.keys", keys)
    # The threshold's query parameter has the member's own name.
    message = message.replace("metadata.", "")
    return ApiError(exc.status, message, exc.headers)
