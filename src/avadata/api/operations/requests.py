"""The export request bodies (the spec's CreateEvmTransactionExportRequest and
CreatePrimaryNetworkTransactionExportRequest, plus our `format`, `firstBlock`, `lastBlock`) and
their checks: every refusal is a 400 naming the field.

Stage: api. Pure: the chain lookups are plans.py's.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from avadata.api.errors import bad_request
from avadata.api.patterns import ISO_DATE, bech32_addresses
from avadata.api.primary.params import blockchain_ids
from avadata.api.webhooks.requests import Integral, parse

EVM = "TRANSACTION_EXPORT_EVM"
PRIMARY = "TRANSACTION_EXPORT_PRIMARY_NETWORK"
PRIMARY_STAKING = "TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING"
PRIMARY_SIMPLE = "TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE"
TYPES = (EVM, PRIMARY, PRIMARY_STAKING, PRIMARY_SIMPLE)
# The most addresses one export follows (each is a range read per batch).
MAX_ADDRESSES = 256
_DATE = re.compile(ISO_DATE)


class _Body(BaseModel):
    # Members we do not read (a client's extras) are ignored, not refused; strict, as the
    # webhooks' bodies: a value is of its documented JSON type ("5" is not a block).
    model_config = ConfigDict(extra="ignore", strict=True)


class EvmOptions(_Body):
    addresses: list[str]
    includeChains: list[str]


class PrimaryOptions(_Body):
    addresses: list[str] = []
    cChainEvmAddresses: list[str] = []
    includeChains: list[str]


class _Export(_Body):
    firstDate: str | None = None
    lastDate: str | None = None
    startDate: str | None = None  # the spec's deprecated names of firstDate and lastDate
    endDate: str | None = None
    # Ours: the file's format, and a block range (EVM exports).
    format: Literal["csv", "parquet"] = "csv"
    firstBlock: Integral | None = Field(default=None, ge=0)
    lastBlock: Integral | None = Field(default=None, ge=0)


class EvmExport(_Export):
    type: Literal["TRANSACTION_EXPORT_EVM"]
    options: EvmOptions


class PrimaryExport(_Export):
    type: Literal[
        "TRANSACTION_EXPORT_PRIMARY_NETWORK",
        "TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING",
        "TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE",
    ]
    options: PrimaryOptions


_DAY = {"type": ["string", "null"], "pattern": ISO_DATE, "description": "YYYY-MM-DD, UTC"}
_COMMON: dict[str, Any] = {
    "firstDate": _DAY,
    "lastDate": _DAY,
    "startDate": {**_DAY, "deprecated": True},
    "endDate": {**_DAY, "deprecated": True},
    "format": {"type": "string", "enum": ["csv", "parquet"], "default": "csv"},
    "firstBlock": {"type": ["integer", "null"], "minimum": 0},
    "lastBlock": {"type": ["integer", "null"], "minimum": 0},
}
_CHAINS = {
    "type": "array",
    "minItems": 1,
    "items": {"type": "string"},
    "description": "chains this server indexes (GET /v1/chains: EVM chain or blockchain IDs)",
}
_PRIMARY_CHAINS = {
    **_CHAINS,
    "items": {"type": "string", "enum": blockchain_ids("PXC")},
    "description": "p-chain, x-chain, c-chain or their IDs on the network this server indexes",
}
_EVM_ADDRESS = {"type": "string", "pattern": "^0x[0-9a-fA-F]{40}$"}
# The request body as the OpenAPI document declares it: the spec's two requests with the rules
# this module enforces, and our members (format, firstBlock, lastBlock). What only the store
# can tell (is a chain indexed here, the addresses' HRP), a bech32 checksum and the order of
# two dates or blocks are checked, not declared.
BODY_SCHEMA: dict[str, Any] = {
    "oneOf": [
        {
            "title": "CreateEvmTransactionExportRequest",
            "type": "object",
            "required": ["type", "options"],
            "properties": {
                "type": {"type": "string", "enum": [EVM]},
                **_COMMON,
                "options": {
                    "type": "object",
                    "required": ["addresses", "includeChains"],
                    "properties": {
                        "addresses": {
                            "type": "array",
                            "maxItems": MAX_ADDRESSES,
                            "items": _EVM_ADDRESS,
                        },
                        "includeChains": _CHAINS,
                    },
                },
            },
        },
        {
            "title": "CreatePrimaryNetworkTransactionExportRequest",
            "type": "object",
            "required": ["type", "options"],
            "properties": {
                "type": {"type": "string", "enum": [PRIMARY, PRIMARY_STAKING, PRIMARY_SIMPLE]},
                **{k: v for k, v in _COMMON.items() if k not in ("firstBlock", "lastBlock")},
                "options": {
                    "type": "object",
                    "required": ["includeChains"],
                    "properties": {
                        "addresses": {
                            "type": "array",
                            "maxItems": MAX_ADDRESSES,
                            "items": {"type": "string", "pattern": bech32_addresses(1)},
                        },
                        "cChainEvmAddresses": {"type": "array", "items": _EVM_ADDRESS},
                        "includeChains": _PRIMARY_CHAINS,
                    },
                },
            },
        },
    ]
}


def parse_export(body: Any) -> EvmExport | PrimaryExport:
    """The body as one of the two requests (by its `type`), or a 400 naming the field."""
    if not isinstance(body, dict):
        raise bad_request("body: must be a JSON object")
    kind = body.get("type")
    if kind not in TYPES:
        raise bad_request(f"type: must be one of {', '.join(TYPES)} (got {kind!r})")
    req: EvmExport | PrimaryExport
    req = parse(EvmExport, body) if kind == EVM else parse(PrimaryExport, body)
    if not req.options.includeChains:
        raise bad_request("options.includeChains: name at least one chain")
    if len(req.options.addresses) > MAX_ADDRESSES:
        n = len(req.options.addresses)
        raise bad_request(f"options.addresses: at most {MAX_ADDRESSES} addresses (got {n})")
    for name in ("firstDate", "lastDate", "startDate", "endDate"):
        given = getattr(req, name)
        if given is not None:
            _day(given, name)  # a deprecated one is checked even where the other wins
    first, last = req.firstBlock, req.lastBlock
    if first is not None and last is not None and first > last:
        raise bad_request(f"firstBlock: {first} is after lastBlock {last}")
    return req


def _day(value: str, name: str) -> date:
    try:
        if not _DATE.fullmatch(value):
            raise ValueError
        return date.fromisoformat(value)
    except ValueError:
        raise bad_request(f"{name}: must be a date YYYY-MM-DD (got {value[:40]!r})") from None


def time_range(req: EvmExport | PrimaryExport) -> tuple[int | None, int | None]:
    """[first, last] in Unix seconds, both days whole (UTC): firstDate (else startDate) from
    its midnight, lastDate (else endDate) to its last second. None: no bound."""
    first_name = "firstDate" if req.firstDate is not None else "startDate"
    last_name = "lastDate" if req.lastDate is not None else "endDate"
    first_text = req.firstDate if req.firstDate is not None else req.startDate
    last_text = req.lastDate if req.lastDate is not None else req.endDate
    first = None if first_text is None else _day(first_text, first_name)
    last = None if last_text is None else _day(last_text, last_name)
    if first is not None and last is not None and first > last:
        raise bad_request(f"{first_name}: {first} is after {last_name} {last}")

    def seconds(d: date) -> int:
        return int(datetime(d.year, d.month, d.day, tzinfo=UTC).timestamp())

    return (
        None if first is None else seconds(first),
        None if last is None else seconds(last + timedelta(days=1)) - 1,
    )
