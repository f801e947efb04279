"""Store rows -> response dicts, shared by the EVM routes.

Stage: api. Every builder leaves an optional key out when there is no value (the SDK refuses
null), writes big numbers as decimal strings and checksums addresses.
"""

from __future__ import annotations

import functools
from typing import Any, cast, get_args

import orjson
from eth_utils.address import to_checksum_address

from avadata.api.data.models import (
    Erc20Token,
    Erc20Transfer,
    Erc721Token,
    Erc721TokenMetadata,
    Erc721Transfer,
    Erc1155Token,
    Erc1155TokenMetadata,
    Erc1155Transfer,
    IndexStatus,
    InternalTxType,
    Money,
    RichAddress,
)
from avadata.store import nft_status
from avadata.store.queries.keyset import AnyRow

ZERO_ADDRESS = "0x0000000000000000000000000000000000000000"

# nft_tokens.index_status -> the reference's NftTokenMetadataStatus. The store's own words map
# onto the nearest status; a reference value stored as is passes through.
_STATUS_WORDS: dict[str, IndexStatus] = {
    nft_status.PENDING: "UNINDEXED",
    nft_status.INDEXED: "INDEXED",
    nft_status.MISSING_TOKEN: "MISSING_TOKEN",
    nft_status.BAD_URI: "INVALID_TOKEN_URI",
    nft_status.BAD_SCHEME: "INVALID_TOKEN_URI_SCHEME",
    nft_status.UNREACHABLE: "UNREACHABLE_TOKEN_URI",
    nft_status.THROTTLED: "THROTTLED_TOKEN_URI",
    nft_status.TOO_LARGE: "METADATA_CONTENT_TOO_LARGE",
    nft_status.BAD_METADATA: "INVALID_METADATA",
    nft_status.BAD_JSON: "INVALID_METADATA_JSON",
    "failed": "UNREACHABLE_TOKEN_URI",
    "unindexable": "INVALID_TOKEN_URI",
}
_OPS: frozenset[str] = frozenset(get_args(InternalTxType))

# The stored status is served only if the reference knows it: the set is the Literal's own.
_STATUSES: frozenset[str] = frozenset(get_args(IndexStatus))


@functools.lru_cache(maxsize=65536)
def checksum(address: str) -> str:
    """EIP-55 form; cached because the same addresses recur on every page."""
    return str(to_checksum_address(address))


def rich(address: str | None) -> RichAddress:
    return {"address": checksum(address or ZERO_ADDRESS)}


def money(value: float, currency: str, as_string: bool) -> Money:
    # The SDK needs a number; the seed's string form is a setting (docs/compatibility.md).
    v: Any = repr(value) if as_string else value
    return cast(Money, {"currencyCode": currency, "value": v})


def index_status(stored: str | None) -> IndexStatus:
    if stored is None:
        return "UNINDEXED"
    if stored in _STATUSES:
        return cast(IndexStatus, stored)
    return _STATUS_WORDS.get(stored, "UNKNOWN")


def _metadata_json(row: AnyRow) -> dict[str, Any]:
    raw = getattr(row, "metadata_json", None)
    if not raw:
        return {}
    try:
        parsed = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return orjson.dumps(value).decode()


def _common_metadata(row: AnyRow, doc: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"indexStatus": index_status(getattr(row, "index_status", None))}
    candidates = {
        "metadataLastUpdatedTimestamp": getattr(row, "last_updated", None),
        "name": getattr(row, "nft_name", None) or doc.get("name"),
        "symbol": doc.get("symbol"),
        "imageUri": getattr(row, "image_uri", None) or doc.get("image"),
        "description": getattr(row, "nft_description", None) or doc.get("description"),
        "animationUri": doc.get("animation_url"),
        "externalUrl": getattr(row, "external_url", None) or doc.get("external_url"),
        "background": doc.get("background_color"),
    }
    for key, value in candidates.items():
        if key == "metadataLastUpdatedTimestamp":
            if value is not None:
                out[key] = int(value)
        elif value is not None:
            out[key] = _text(value)
    return out


def erc721_metadata(row: AnyRow) -> Erc721TokenMetadata:
    doc = _metadata_json(row)
    out = _common_metadata(row, doc)
    attributes = doc.get("attributes")
    if attributes is not None:
        out["attributes"] = _text(attributes)
    return cast(Erc721TokenMetadata, out)


def erc1155_metadata(row: AnyRow) -> Erc1155TokenMetadata:
    doc = _metadata_json(row)
    out = _common_metadata(row, doc)
    decimals = doc.get("decimals")
    if isinstance(decimals, int) and not isinstance(decimals, bool):
        out["decimals"] = decimals
    if doc.get("properties") is not None:
        out["properties"] = _text(doc["properties"])
    return cast(Erc1155TokenMetadata, out)


def erc20_token(row: AnyRow) -> Erc20Token:
    return {
        "address": checksum(row.token),
        "name": row.token_name or "",
        "symbol": row.token_symbol or "",
        "decimals": int(row.token_decimals or 0),
        "ercType": "ERC-20",
    }


def erc721_token(row: AnyRow, owner: str | None = None) -> Erc721Token:
    token: Erc721Token = {
        "address": checksum(row.token),
        "name": row.token_name or "",
        "symbol": row.token_symbol or "",
        "ercType": "ERC-721",
        "tokenId": str(row.token_id),
        "tokenUri": row.token_uri or "",
        "metadata": erc721_metadata(row),
    }
    if owner is not None and owner != ZERO_ADDRESS:
        token["ownerAddress"] = checksum(owner)
    return token


def erc1155_token(row: AnyRow) -> Erc1155Token:
    return {
        "address": checksum(row.token),
        "ercType": "ERC-1155",
        "tokenId": str(row.token_id),
        "tokenUri": row.token_uri or "",
        "metadata": erc1155_metadata(row),
    }


def tx_ref(row: AnyRow) -> dict[str, Any]:
    """Where a transfer or internal transaction happened and between whom: the members every
    such item starts with, in the reference's order."""
    return {
        "blockNumber": str(row.block_number),
        "blockTimestamp": int(row.block_timestamp),
        "blockHash": row.block_hash,
        "txHash": row.tx_hash,
        "from": rich(row.from_address),
        "to": rich(row.to_address),
    }


def transfer(row: AnyRow) -> Erc20Transfer | Erc721Transfer | Erc1155Transfer:
    """A token_transfers row (with token info) as the item its standard calls for."""
    base = tx_ref(row)
    base["logIndex"] = int(row.log_index)
    if row.standard == "ERC-721":
        base["erc721Token"] = erc721_token(row)
        return cast(Erc721Transfer, base)
    base["value"] = str(row.value)
    if row.standard == "ERC-1155":
        base["erc1155Token"] = erc1155_token(row)
        return cast(Erc1155Transfer, base)
    base["erc20Token"] = erc20_token(row)
    return cast(Erc20Transfer, base)


def internal_op(call_type: str) -> InternalTxType:
    """A frame's call type as the reference's InternalTransactionOpCall (UNKNOWN otherwise)."""
    op = call_type.upper()
    return cast(InternalTxType, op if op in _OPS else "UNKNOWN")


def transfer_detail(row: AnyRow) -> tuple[str, dict[str, Any]]:
    """A transfer inside a transaction (its parties, log index, amount and token): the
    response member it belongs to and the item."""
    item: dict[str, Any] = {
        "from": rich(row.from_address),
        "to": rich(row.to_address),
        "logIndex": int(row.log_index),
    }
    if row.standard == "ERC-721":
        item["erc721Token"] = erc721_token(row)
        return "erc721Transfers", item
    item["value"] = str(row.value)
    if row.standard == "ERC-1155":
        item["erc1155Token"] = erc1155_token(row)
        return "erc1155Transfers", item
    item["erc20Token"] = erc20_token(row)
    return "erc20Transfers", item


def internal_detail(row: AnyRow) -> dict[str, Any]:
    """An internal transaction inside a transaction."""
    return {
        "from": rich(row.from_address),
        "to": rich(row.to_address),
        "internalTxType": internal_op(str(row.call_type)),
        "value": str(row.value),
        "isReverted": bool(row.reverted),
        "gasUsed": str(row.gas_used),
        "gasLimit": str(row.gas),
    }
