"""A primary-network transaction's rows -> the messages of `primary_network_address_activity`
and `validator_activity` webhooks.

Stage: delivery; pure (no I/O). The hosted service documents these payloads only by example
(reference webhooks.md, section 2): the envelope as address_activity's, an `event` carrying its
own `eventType` (the sub-event) and the watched keys it concerns; a balance change of several
watched addresses in one transaction is reported combined. The fields inside `event` are ours
(docs/compatibility.md, "Webhooks, second part").

Invariant: a message's id depends only on the webhook, the chain and the transaction (as
address_activity's), so a message sent again carries the same id.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any

from avadata.delivery.payload import NAMESPACE, canonical
from avadata.store.primary.webhook_events import PrimaryEvent
from avadata.store.webhooks.registry import Webhook

ADDRESS_ACTIVITY = "primary_network_address_activity"
VALIDATOR_ACTIVITY = "validator_activity"
_ALIAS = {"P": "p-chain", "X": "x-chain", "C": "c-chain"}
# A P-chain tx type -> the validator sub-event it is (L1 weight changes: see _l1_weight).
_VALIDATOR_TXS = {
    "AddValidatorTx": "validator_stake",
    "AddPermissionlessValidatorTx": "validator_stake",
    "AddSubnetValidatorTx": "validator_stake",
    "AddAutoRenewedValidatorTx": "validator_stake",
    "ConvertSubnetToL1Tx": "validator_stake",
    "RegisterL1ValidatorTx": "validator_stake",
    "AddDelegatorTx": "delegator_stake",
    "AddPermissionlessDelegatorTx": "delegator_stake",
    "RewardValidatorTx": "reward_distribution",
    "RewardAutoRenewedValidatorTx": "reward_distribution",
    "IncreaseL1ValidatorBalanceTx": "l1_validator_balance_increased",
    "DisableL1ValidatorTx": "l1_validator_disabled",
    "RemoveSubnetValidatorTx": "validator_removed",
}


def _metadata(hook: Webhook) -> dict[str, Any]:
    assert hook.scope is not None
    found: dict[str, Any] = json.loads(hook.scope.metadata)
    return found


def wanted_sub_events(hook: Webhook) -> set[str]:
    meta = _metadata(hook)
    subs = meta.get("subEvents") or {}
    names = subs.get("addressActivitySubEvents") or subs.get("validatorActivitySubEvents") or ()
    return set(names)


def _utxo(row: dict[str, Any]) -> dict[str, Any]:
    out = {
        "utxoId": row["utxo_id"],
        "txHash": row["tx_hash"],
        "outputIndex": int(row["output_index"]),
        "assetId": row["asset_id"],
        "amount": str(row["amount"]),
        "addresses": json.loads(row["addresses"]),
        "staked": bool(row["staked"]),
    }
    if row.get("reward_type") is not None:
        out["rewardType"] = row["reward_type"]
    return out


def _owned(rows: Sequence[dict[str, Any]], watched: set[str]) -> list[dict[str, Any]]:
    return [r for r in rows if watched & set(json.loads(r["addresses"]))]


def balance_changes(ev: PrimaryEvent, watched: set[str]) -> list[dict[str, Any]]:
    """The watched addresses' combined change per asset: what the tx emitted to them less
    what it consumed of theirs (signed decimal strings), assets in ID order."""
    delta: dict[str, int] = {}
    for r in _owned(ev.emitted, watched):
        delta[r["asset_id"]] = delta.get(r["asset_id"], 0) + int(r["amount"])
    for r in _owned(ev.consumed, watched):
        delta[r["asset_id"]] = delta.get(r["asset_id"], 0) - int(r["amount"])
    return [{"assetId": a, "amount": str(v)} for a, v in sorted(delta.items())]


def _rewards(ev: PrimaryEvent) -> list[dict[str, Any]]:
    return [
        {
            "stakingTxHash": r["tx_hash"],
            "nodeId": r["node_id"],
            "subnetId": r["subnet_id"],
            "kind": r["kind"],
            "rewardAddresses": json.loads(r["reward_addresses"]),
            "committed": bool(r["reward_committed"]),
            "validationReward": str(r["validation_reward"] or 0),
            "delegationReward": str(r["delegation_reward"] or 0),
        }
        for r in ev.rewarded
    ]


def _tx(ev: PrimaryEvent, chain: str) -> dict[str, Any]:
    tx = ev.tx
    return {
        "chainId": _ALIAS[chain],
        "txHash": tx["tx_hash"],
        "txType": tx["tx_type"],
        "blockNumber": str(tx["block_number"]),
        "blockHash": tx["block_hash"],
        "blockTimestamp": int(tx["block_timestamp"]),
        "txIndex": int(tx["tx_index"]),
        "memo": tx["body"].get("memo", ""),
    }


def _envelope(hook: Webhook, chain: str, ev: PrimaryEvent, event: dict[str, Any]) -> bytes:
    assert hook.scope is not None
    event["network"] = hook.scope.network
    message = {
        "webhookId": hook.webhook_id,
        "eventType": hook.event_type,
        # CB58 IDs are case-sensitive: not lower-cased, as payload.message_id's hex hashes.
        "messageId": str(uuid.uuid5(NAMESPACE, f"{hook.webhook_id}:{chain}:{ev.tx['tx_hash']}")),
        "event": event,
    }
    return canonical(message)


def address_activity(hook: Webhook, ev: PrimaryEvent, watched: Sequence[str]) -> bytes | None:
    """The message of one tx touching `watched` (bare bech32, the store's form); None when
    its sub-event is not one the webhook asked for."""
    assert hook.scope is not None
    chain = hook.scope.chain
    rewarding = _VALIDATOR_TXS.get(str(ev.tx["tx_type"])) == "reward_distribution"
    sub = "reward_distribution" if rewarding else "balance_change"
    if sub not in wanted_sub_events(hook):
        return None
    mine = set(watched)
    touched = {a for r in (*ev.emitted, *ev.consumed) for a in json.loads(r["addresses"])}
    touched |= {a for r in ev.rewarded for a in json.loads(r["reward_addresses"])}
    event = {
        "eventType": sub,
        "addresses": sorted(mine & touched),
        "transaction": _tx(ev, chain),
        "balanceChanges": balance_changes(ev, mine),
        "consumedUtxos": [_utxo(r) for r in _owned(ev.consumed, mine)],
        "emittedUtxos": [_utxo(r) for r in _owned(ev.emitted, mine)],
    }
    if ev.rewarded:
        event["rewards"] = _rewards(ev)
    return _envelope(hook, chain, ev, event)


def _l1_weight(body: dict[str, Any]) -> str:
    """A SetL1ValidatorWeightTx's sub-event: weight 0 removes the validator."""
    weights = [d.get("weight") for d in body.get("l1ValidatorDetails", ())]
    if weights and weights[0] is not None and int(weights[0]) == 0:
        return "l1_validator_removed"
    return "l1_validator_weight_changed"


def validator_sub_event(ev: PrimaryEvent) -> str | None:
    kind = str(ev.tx["tx_type"])
    if kind == "SetL1ValidatorWeightTx":
        return _l1_weight(ev.tx["body"])
    return _VALIDATOR_TXS.get(kind)


def validator_activity(hook: Webhook, ev: PrimaryEvent) -> bytes | None:
    """The message of one P-chain tx touching the watched validators; None when its
    sub-event is not one the webhook asked for."""
    sub = validator_sub_event(ev)
    if sub is None or sub not in wanted_sub_events(hook):
        return None
    touches = sorted(set(ev.validations))
    event: dict[str, Any] = {
        "eventType": sub,
        "nodeIds": sorted({node for _, node, _ in touches}),
        "subnetIds": sorted({subnet for _, _, subnet in touches}),
        "transaction": _tx(ev, "P"),
    }
    l1 = sorted({k for k, _, _ in touches if k not in _STAKER_KINDS})
    if l1:
        event["validationIds"] = l1
    if ev.rewarded:
        event["rewards"] = _rewards(ev)
    return _envelope(hook, "P", ev, event)


_STAKER_KINDS = {
    f"{k}{s}"
    for k in ("validator", "delegator", "subnet_validator")
    for s in ("", "_reward", "_removed")
}
