"""The primary-network webhooks' requests (the spec's PrimaryNetworkAddressActivityRequest and
ValidatorActivityRequest) -> a NewWebhook; a 400 naming the field for anything we cannot serve.

Stage: api. `network` must be the network this store indexes (as every primary route, a 404
otherwise); P/X addresses are checked as the primary routes check them (params.addresses).
What is served and what is refused: docs/compatibility.md, "Webhooks, second part".
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from avadata.api.deps import AppState
from avadata.api.errors import ApiError, bad_request
from avadata.api.primary import params
from avadata.api.webhooks import requests as rq
from avadata.api.webhooks.requests import (
    ADDRESS_SUB_EVENTS,
    VALIDATOR_SUB_EVENTS,
    Body,
    Destination,
)
from avadata.decode.codec.ids import parse_node_id
from avadata.decode.codec.reader import DecodeError
from avadata.store.webhooks.registry import NewWebhook, Scope, Webhook

# Sub-events the spec lists that need balances over time, not indexed txs: refused.
_NOT_SERVED = {"balance_threshold"}
# Served given the webhook's threshold (delivery/primary/thresholds.py).
_L1_THRESHOLD = "l1_validator_balance_threshold"
_ALIAS = {"P": "p-chain", "X": "x-chain", "C": "c-chain"}


class AddressSubEvents(Body):
    addressActivitySubEvents: list[str]


class AddressMetadata(Body):
    keyType: Literal["addresses"]
    keys: list[str]
    subEvents: AddressSubEvents


class PrimaryAddressRequest(Destination):
    eventType: Literal["primary_network_address_activity"]
    network: str
    chainId: str
    metadata: AddressMetadata


class ValidatorSubEvents(Body):
    validatorActivitySubEvents: list[str]


class ValidatorMetadata(Body):
    keyType: Literal["nodeId", "subnetId"]
    keys: list[str]
    subEvents: ValidatorSubEvents
    # Kept and answered, not used (docs/compatibility.md).
    nodeIds: list[str] | None = None
    subnetIds: list[str] | None = None
    # nAVAX, a decimal string (the spec's type); checked by _threshold.
    l1ValidatorFeeBalanceThreshold: str | None = None


class ValidatorRequest(Destination):
    eventType: Literal["validator_activity"]
    network: str
    metadata: ValidatorMetadata


def _sub_events(values: list[str], served: tuple[str, ...], name: str) -> None:
    if not values:
        raise bad_request(f"{name}: name at least one sub-event ({', '.join(served)})")
    for i, v in enumerate(values):
        if v in _NOT_SERVED:
            raise bad_request(f"{name}[{i}]: {v} is not served by this server")
        if v not in served:
            raise bad_request(f"{name}[{i}]: must be one of {', '.join(served)} (got {v!r})")


def _valid_key(key_type: str, key: str) -> bool:
    try:
        if key_type == "nodeId":
            return len(parse_node_id(key)) == 20
        params.subnet_id(key)
        return True
    except (ApiError, DecodeError, ValueError):
        return False


def _validator_keys(key_type: str, keys: list[str], cap: int) -> None:
    if not keys:
        raise bad_request("metadata.keys: name at least one key")
    rq.at_most(len(set(keys)), cap, "metadata.keys")
    what = "a NodeID-..." if key_type == "nodeId" else "a CB58 subnet ID"
    for i, k in enumerate(keys):
        if not _valid_key(key_type, k):
            raise bad_request(
                f"metadata.keys[{i}]: must be {what} with a valid checksum (got {k!r})"
            )


def _threshold(value: str | None, subs: list[str]) -> None:
    """An L1 validator's fee balance threshold: nAVAX as decimal digits
    (rq.THRESHOLD_PATTERN), and required with the sub-event that uses it."""
    if value is None:
        if _L1_THRESHOLD in subs:
            raise bad_request(
                f"metadata.l1ValidatorFeeBalanceThreshold: required with the {_L1_THRESHOLD} "
                "sub-event (nAVAX, a decimal string)"
            )
        return
    if re.fullmatch(rq.THRESHOLD_PATTERN, value) is None:
        raise bad_request(
            "metadata.l1ValidatorFeeBalanceThreshold: must be nAVAX as a decimal string "
            f"of 1 to 19 digits (got {value[:40]!r})"
        )


def _new(st: AppState, req: Any, chain: str) -> NewWebhook:
    params.network(req.network, params.indexed_network(st))
    # The metadata as read (members we do not serve are not kept, nor answered back; an
    # optional one absent stays absent).
    kept = req.metadata.model_dump(exclude_none=True)
    scope = Scope(req.network, chain, json.dumps(kept, sort_keys=True))
    return NewWebhook(
        event_type=req.eventType,
        chain_id=0,
        url=rq.url(req.url, st.settings.refuses_private_targets()),
        name=req.name or "",
        description=req.description or "",
        include_internal_txs=False,
        include_logs=False,
        event_signatures=(),
        addresses=(),
        scope=scope,
    )


def new_webhook(st: AppState, kind: str, body: dict[str, Any]) -> NewWebhook:
    """The checked NewWebhook of a primary-network creation request `body` of type `kind`."""
    cap = st.settings.webhook_max_addresses
    if kind == "validator_activity":
        req_v = rq.parse(ValidatorRequest, body)
        meta = req_v.metadata
        _validator_keys(meta.keyType, meta.keys, cap)
        subs = meta.subEvents.validatorActivitySubEvents
        served = (*VALIDATOR_SUB_EVENTS, _L1_THRESHOLD)
        _sub_events(subs, served, "metadata.subEvents.validatorActivitySubEvents")
        _threshold(meta.l1ValidatorFeeBalanceThreshold, subs)
        return _new(st, req_v, "P")
    req = rq.parse(PrimaryAddressRequest, body)
    net = params.network(req.network, params.indexed_network(st))
    try:
        chain = params.chain(net, req.chainId)
    except ApiError:
        chain = ""
    if chain not in ("P", "X", "C"):
        raise bad_request(f"chainId: must be p-chain, x-chain or c-chain (got {req.chainId!r})")
    meta_a = req.metadata
    if not meta_a.keys:
        raise bad_request("metadata.keys: name at least one address")
    params.addresses(net, chain, ",".join(meta_a.keys), "metadata.keys", cap)
    subs = meta_a.subEvents.addressActivitySubEvents
    _sub_events(subs, ADDRESS_SUB_EVENTS, "metadata.subEvents.addressActivitySubEvents")
    return _new(st, req, chain)


def webhook_body(hook: Webhook) -> dict[str, Any]:
    """A primary-network webhook as the spec answers it (PrimaryNetworkAddressActivityResponse,
    ValidatorActivityResponse), plus the network it watches."""
    assert hook.scope is not None
    return {
        "id": hook.webhook_id,
        "url": hook.url,
        "chainId": _ALIAS.get(hook.scope.chain, hook.scope.chain),
        "network": hook.scope.network,
        "status": hook.status,
        "createdAt": hook.created_at_ms,
        "name": hook.name,
        "description": hook.description,
        "eventType": hook.event_type,
        "metadata": json.loads(hook.scope.metadata),
    }
