"""The webhooks API's request bodies (the spec's EVMAddressActivityRequest, UpdateWebhookRequest,
AddressesChangeRequest) and their checks: every refusal is a 400 naming the field.

Stage: api. Pure: the chain lookup is the caller's.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError

from avadata.api.errors import bad_request
from avadata.api.patterns import CB58_ID, NODE_ID, primary_addresses
from avadata.api.primary.params import NETWORK_PATTERN, blockchain_ids
from avadata.delivery.targets import literal_refusal

ADDRESS_ACTIVITY = "address_activity"
# The spec's event types (the primary-network ones: api/webhooks/primary.py).
EVENT_TYPES = (ADDRESS_ACTIVITY, "primary_network_address_activity", "validator_activity")
# The sub-events the primary-network webhooks serve (api/webhooks/primary.py checks them).
ADDRESS_SUB_EVENTS = ("balance_change", "reward_distribution")
VALIDATOR_SUB_EVENTS = (
    "validator_stake",
    "delegator_stake",
    "reward_distribution",
    "l1_validator_balance_increased",
    "l1_validator_disabled",
    "l1_validator_removed",
    # ours: a permissioned subnet validator removed, an L1 validator's weight changed
    "validator_removed",
    "l1_validator_weight_changed",
)
_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
_TOPIC = re.compile(r"^0x[0-9a-fA-F]{64}$")
M = TypeVar("M", bound=BaseModel)


class Body(BaseModel):
    # Fields the spec has and we do not read (e.g. a client's extras) are ignored, not refused.
    # Strict: a value is of its documented JSON type ("true" is not a boolean, 5.0 not a block).
    model_config = ConfigDict(extra="ignore", strict=True)


class AddressActivityMetadata(Body):
    addresses: list[str]
    eventSignatures: list[str] | None = None


class Destination(Body):
    """What every creation request has: where to send, and the webhook's labels."""

    url: str
    name: str | None = None
    description: str | None = None


class EvmAddressActivityRequest(Destination):
    eventType: Literal["address_activity"]
    chainId: str
    metadata: AddressActivityMetadata
    includeInternalTxs: bool = False
    includeLogs: bool = False


class UpdateWebhookRequest(Body):
    name: str | None = None
    description: str | None = None
    url: str | None = None
    status: Literal["active", "inactive"] | None = None
    includeInternalTxs: bool | None = None
    includeLogs: bool | None = None


class AddressesChangeRequest(Body):
    addresses: list[str]


def _integral(value: Any) -> Any:
    # JSON Schema's integer includes 5.0; strict validation would refuse it.
    return int(value) if isinstance(value, float) and value.is_integer() else value


# An integer member of a strict body: JSON Schema's integer includes 5.0.
Integral = Annotated[int, BeforeValidator(_integral)]


class RewindRequest(Body):
    blockNumber: Integral


def parse(model: type[M], body: Any) -> M:
    """`body` as `model`, or a 400 naming each wrong field ("metadata.addresses: ...")."""
    if not isinstance(body, dict):
        raise bad_request("body: must be a JSON object")
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        parts = []
        for err in exc.errors():
            name = ".".join(str(p) for p in err["loc"]) or "body"
            parts.append(f"{name}: {err['msg']}")
        raise bad_request("; ".join(parts)) from None


def event_type(body: Any) -> str:
    """The request's eventType: a 400 naming it when it is missing or unknown."""
    if not isinstance(body, dict):
        raise bad_request("body: must be a JSON object")
    kind = body.get("eventType")
    if kind not in EVENT_TYPES:
        raise bad_request(f"eventType: must be one of {', '.join(EVENT_TYPES)} (got {kind!r})")
    return str(kind)


def url(value: str, refuse_private: bool, name: str = "url") -> str:
    reason = literal_refusal(value, refuse_private)
    if reason is not None:
        raise bad_request(f"{name}: {reason}")
    return value


def addresses(values: list[str], name: str) -> list[str]:
    """Validated, lower-cased (as the store keeps them), in the caller's order."""
    out = []
    for i, a in enumerate(values):
        if not _ADDRESS.match(a):
            raise bad_request(f"{name}[{i}]: must be a 0x-prefixed 20-byte hex address (got {a!r})")
        out.append(a.lower())
    return out


def at_most(count: int, limit: int, name: str) -> None:
    if count > limit:
        raise bad_request(f"{name}: at most {limit} addresses per webhook (got {count})")


def topics(values: list[str] | None) -> tuple[str, ...]:
    out = []
    for i, t in enumerate(values or ()):
        if not _TOPIC.match(t):
            name = f"metadata.eventSignatures[{i}]"
            raise bad_request(f"{name}: must be a 0x-prefixed 32-byte hex topic (got {t!r})")
        out.append(t.lower())
    return tuple(out)


# The bodies as the OpenAPI document states them (the routes parse them themselves, to word
# each 400): the models' fields with the rules the checks above apply. What no schema can say
# (the chain must be one the store indexes, a receiver's host must not be private when the
# server refuses those, the address limit per webhook) is in the descriptions.
URL_PATTERN = r"^https?://[A-Za-z0-9._~%-]+(:[0-9]{1,5})?([/?#][^\s]*)?$"
MAX_BLOCK = 2**63 - 1
_STR = {"type": "string"}
_NULL_STR = {"type": ["string", "null"]}
# An L1 validator's fee balance threshold: nAVAX as decimal digits; 19 of them already pass
# the whole supply, and every such value fits the uint64 the P-chain counts in.
THRESHOLD_PATTERN = "^[0-9]{1,19}$"
_NULL_BOOL = {"type": ["boolean", "null"]}
_NULL_STRS = {"type": ["array", "null"], "items": {"type": "string"}}
_ADDRESSES = {"type": "array", "items": {"type": "string", "pattern": _ADDRESS.pattern}}
_URL = {
    "type": "string",
    "pattern": URL_PATTERN,
    "description": "http(s) receiver; private and loopback hosts are refused when the "
    "server refuses private targets",
}


def _obj(required: list[str], **properties: Any) -> dict[str, Any]:
    return {"type": "object", "required": required, "properties": properties}


def _keys(pattern: str, what: str) -> dict[str, Any]:
    return {
        "type": "array",
        "minItems": 1,
        "items": {"type": "string", "pattern": pattern},
        "description": f"{what}, each with a valid checksum; at most the server's per-webhook "
        "limit",
    }


def _subs(name: str, served: tuple[str, ...]) -> dict[str, Any]:
    listed = {"type": "array", "minItems": 1, "items": {"type": "string", "enum": list(served)}}
    return _obj([name], **{name: listed})


_NETWORK = {"type": "string", "pattern": NETWORK_PATTERN, "description": "the network indexed"}
_LABELS = {"url": _URL, "name": _NULL_STR, "description": _NULL_STR}
_PRIMARY_ADDRESS_ACTIVITY = _obj(
    ["eventType", "url", "network", "chainId", "metadata"],
    eventType={"type": "string", "enum": ["primary_network_address_activity"]},
    network=_NETWORK,
    chainId={
        "type": "string",
        "enum": blockchain_ids("PXC"),
        "description": "p-chain, x-chain, c-chain or their IDs on the network indexed",
    },
    metadata=_obj(
        ["keyType", "keys", "subEvents"],
        keyType={"type": "string", "enum": ["addresses"]},
        keys=_keys(
            primary_addresses(1), "bech32 addresses of the network's HRP (0x on the C-chain)"
        ),
        subEvents=_subs("addressActivitySubEvents", ADDRESS_SUB_EVENTS),
    ),
    **_LABELS,
)
_VALIDATOR_ACTIVITY = _obj(
    ["eventType", "url", "network", "metadata"],
    eventType={"type": "string", "enum": ["validator_activity"]},
    network=_NETWORK,
    metadata={
        "oneOf": [
            _obj(
                ["keyType", "keys", "subEvents"],
                keyType={"type": "string", "enum": [key_type]},
                keys=_keys(pattern, what),
                subEvents=_subs("validatorActivitySubEvents", VALIDATOR_SUB_EVENTS),
                # Kept and answered, not used.
                nodeIds=_NULL_STRS,
                subnetIds=_NULL_STRS,
                l1ValidatorFeeBalanceThreshold={**_NULL_STR, "pattern": THRESHOLD_PATTERN},
            )
            for key_type, pattern, what in (
                ("nodeId", NODE_ID, "NodeID-..."),
                ("subnetId", CB58_ID, "CB58 subnet IDs"),
            )
        ]
    },
    **_LABELS,
)
_EVM_ADDRESS_ACTIVITY = _obj(
    ["eventType", "url", "chainId", "metadata"],
    eventType={"type": "string", "enum": [ADDRESS_ACTIVITY]},
    chainId={**_STR, "description": "a chain this server indexes (GET /v1/chains)"},
    metadata=_obj(
        ["addresses"],
        addresses={**_ADDRESSES, "description": "at most the server's per-webhook limit"},
        eventSignatures={
            "type": ["array", "null"],
            "items": {"type": "string", "pattern": _TOPIC.pattern},
        },
    ),
    includeInternalTxs={"type": "boolean"},
    includeLogs={"type": "boolean"},
    **_LABELS,
)
BODIES: dict[str, dict[str, Any]] = {
    # One of the spec's three requests, told apart by eventType.
    "createWebhook": {
        "oneOf": [_EVM_ADDRESS_ACTIVITY, _PRIMARY_ADDRESS_ACTIVITY, _VALIDATOR_ACTIVITY]
    },
    "updateWebhook": _obj(
        [],
        name=_NULL_STR,
        description=_NULL_STR,
        url={**_URL, "type": ["string", "null"]},
        status={"type": ["string", "null"], "enum": ["active", "inactive", None]},
        includeInternalTxs=_NULL_BOOL,
        includeLogs=_NULL_BOOL,
    ),
    "addresses": _obj(["addresses"], addresses=_ADDRESSES),
    "rewindWebhook": _obj(
        ["blockNumber"], blockNumber={"type": "integer", "minimum": 0, "maximum": MAX_BLOCK}
    ),
}


def documented(name: str) -> dict[str, Any]:
    """`openapi_extra` of a route whose JSON body is BODIES[name]."""
    body = {"application/json": {"schema": BODIES[name]}}
    return {"requestBody": {"required": True, "content": body}}
