"""An indexed transaction's rows -> the hosted service's `address_activity` message, and its
canonical bytes.

Stage: delivery; pure (no I/O). The webhook POSTs and the event stream send the same message.
The shape is the spec's `WebhookAddressActivityResponse` (reference webhooks.md, section 3);
what the store does not keep is listed in docs/compatibility.md ("Webhooks").

Invariant: `message_id` depends only on the webhook and the transaction, so a message sent
again (a retry, a restart, a rewind) carries the same id and a receiver can drop the repeat.
"""

from __future__ import annotations

import json
import uuid
from decimal import Decimal
from typing import Any, Protocol

from avadata.store.webhooks.events import TxEvent

EVENT_TYPE = "address_activity"
# The namespace of every messageId (uuid5): a fixed, arbitrary UUID of ours.
NAMESPACE = uuid.UUID("0b6f4d0e-7a1c-5f3e-9a57-617661646174")
_STANDARDS = {"erc20": "ERC20", "erc721": "ERC721", "erc1155": "ERC1155"}


def _standard(row: dict[str, Any]) -> str:
    """The store's "ERC-20" as the message's key stem, "erc20"."""
    return str(row["standard"]).replace("-", "").lower()


def message_id(webhook_id: str, chain_id: int, tx_hash: str) -> str:
    return str(uuid.uuid5(NAMESPACE, f"{webhook_id}:{chain_id}:{tx_hash.lower()}"))


def canonical(message: dict[str, Any]) -> bytes:
    """The JSON the signature covers, and the body sent: keys sorted, no whitespace, UTF-8
    (RFC 8785 for these messages: strings, integers and booleans only)."""
    return json.dumps(message, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def with_decimals(value: int, decimals: int | None) -> str:
    """`value` scaled down by `decimals` as a plain decimal string ("1.5", "0.000001")."""
    if not decimals:
        return str(value)
    scaled = Decimal(value).scaleb(-decimals)
    text = format(scaled, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _token(row: dict[str, Any]) -> dict[str, Any]:
    decimals = row.get("decimals")
    std = _standard(row)
    shown = decimals if std == "erc20" and decimals is not None else 0
    return {
        "address": row["token"],
        "name": row.get("name") or "",
        "symbol": row.get("symbol") or "",
        "decimals": int(shown),
        "valueWithDecimals": with_decimals(int(row["value"]), int(shown)),
    }


def _transfer(row: dict[str, Any]) -> dict[str, Any]:
    std = _standard(row)
    out: dict[str, Any] = {
        "transactionHash": row["tx_hash"],
        "type": _STANDARDS.get(std, std.upper()),
        "from": row["from_address"],
        "to": row["to_address"],
        "value": str(row["value"]),
        "blockTimestamp": int(row["block_timestamp"]),
        "logIndex": int(row["log_index"]),
        f"{std}Token": _token(row),
    }
    if row.get("token_id") is not None:
        out["tokenId"] = str(row["token_id"])
    return out


def _internal(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "from": row["from_address"],
        "to": row["to_address"] or "",
        "internalTxType": str(row["call_type"]).upper(),
        "value": str(row["value"]),
        "gasUsed": str(row["gas_used"]),
        "gasLimit": str(row["gas"]),
        "transactionHash": row["tx_hash"],
    }


def _log(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "address": row["address"],
        "topic0": row["topic0"] or "",
        "topic1": row["topic1"],
        "topic2": row["topic2"],
        "topic3": row["topic3"],
        "data": row["data"],
        "transactionIndex": int(row["tx_index"]),
        "logIndex": int(row["log_index"]),
        "removed": False,
    }


def transaction(ev: TxEvent, chain_id: int, *, internals: bool) -> dict[str, Any]:
    """The spec's Transaction of one indexed transaction."""
    tx = ev.tx
    price = int(tx["gas_price"])
    base_fee = tx.get("base_fee")
    by_std: dict[str, list[dict[str, Any]]] = {"erc20": [], "erc721": [], "erc1155": []}
    for row in ev.transfers:
        by_std.setdefault(_standard(row), []).append(_transfer(row))
    out: dict[str, Any] = {
        "blockHash": tx["block_hash"],
        "blockNumber": str(tx["block_number"]),
        "from": tx["from_address"],
        "gas": str(tx["gas_limit"]),
        "gasPrice": str(price),
        "maxFeePerGas": str(price),
        # The tip actually paid per gas: what the store can tell of the sender's cap.
        "maxPriorityFeePerGas": str(price - int(base_fee) if base_fee is not None else 0),
        "txHash": tx["hash"],
        "txStatus": "1" if tx["success"] else "0",
        # The store keeps the 4-byte selector only, not the whole calldata.
        "input": tx["method_hash"] or "0x",
        "nonce": str(tx["nonce"]),
        "to": tx["to_address"] or "",
        "transactionIndex": int(tx["tx_index"]),
        "value": str(tx["value"]),
        "type": int(tx["tx_type"]),
        "chainId": str(chain_id),
        "receiptCumulativeGasUsed": "",
        "receiptGasUsed": str(tx["gas_used"]),
        "receiptEffectiveGasPrice": str(price),
        "receiptRoot": "",
        "blockTimestamp": int(tx["block_timestamp"]),
        "erc20Transfers": by_std["erc20"],
        "erc721Transfers": by_std["erc721"],
        "erc1155Transfers": by_std["erc1155"],
    }
    if tx.get("contract_address"):
        out["contractAddress"] = tx["contract_address"]
    if internals:
        out["internalTransactions"] = [_internal(r) for r in ev.internals]
    return out


def message(
    webhook_id: str,
    chain_id: int,
    ev: TxEvent,
    *,
    internals: bool,
    logs: bool,
    event_signatures: tuple[str, ...] = (),
) -> dict[str, Any]:
    """The whole message (envelope and event) of one transaction for one webhook."""
    event: dict[str, Any] = {"transaction": transaction(ev, chain_id, internals=internals)}
    if logs:
        wanted = {s.lower() for s in event_signatures}
        event["logs"] = [
            _log(r) for r in ev.logs if not wanted or (r["topic0"] or "").lower() in wanted
        ]
    return {
        "webhookId": webhook_id,
        "eventType": EVENT_TYPE,
        "messageId": message_id(webhook_id, chain_id, str(ev.tx["hash"])),
        "event": event,
    }


def enveloped(webhook_id: str, chain_id: int, ev: TxEvent, event: bytes) -> bytes:
    """`canonical(message(...))` from the canonical bytes of its `event` (`event_bytes`): the
    envelope's keys sort after "event", so the event is encoded once for all the webhooks
    that share it (a thousand receivers of one address) and only the envelope per webhook."""
    mid = message_id(webhook_id, chain_id, str(ev.tx["hash"]))
    tail = canonical({"eventType": EVENT_TYPE, "messageId": mid, "webhookId": webhook_id})
    return b'{"event":' + event + b"," + tail[1:]


class Subscriber(Protocol):
    """What a message is made for: a webhook (store/webhooks/registry.Webhook) or a stream's
    filter (api/webhooks/stream.py)."""

    @property
    def webhook_id(self) -> str: ...
    @property
    def chain_id(self) -> int: ...
    @property
    def include_internal_txs(self) -> bool: ...
    @property
    def include_logs(self) -> bool: ...
    @property
    def event_signatures(self) -> tuple[str, ...]: ...


def shared_key(to: Subscriber) -> tuple[object, ...]:
    """What a message's `event` depends on besides the transaction: subscribers with one key
    get the same `event_bytes`."""
    flags = (to.chain_id, to.include_internal_txs, to.include_logs)
    return (*flags, to.event_signatures if to.include_logs else ())


def event_bytes(to: Subscriber, ev: TxEvent) -> bytes:
    """The canonical bytes of the `event` of `to`'s message of one transaction."""
    msg = message(
        to.webhook_id,
        to.chain_id,
        ev,
        internals=to.include_internal_txs,
        logs=to.include_logs,
        event_signatures=to.event_signatures,
    )
    return canonical(msg["event"])


def body(to: Subscriber, ev: TxEvent, event: bytes | None = None) -> bytes:
    """The canonical bytes of `message` of one transaction for `to` (`event`: its
    `event_bytes`, when the caller has them already)."""
    if event is None:
        event = event_bytes(to, ev)
    return enveloped(to.webhook_id, to.chain_id, ev, event)


def event_id(ev: TxEvent) -> str:
    """The stream's event id of a transaction: its position, "<block>-<tx index>"."""
    return f"{ev.position[0]}-{ev.position[1]}"
