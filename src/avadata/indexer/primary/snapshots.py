"""What only the node knows now, kept as snapshots: the P-chain supply (the supply replay's
anchor), the current stakers' potential rewards and uptime, the L1 validators' balances.

Stage: indexer (the node's answers -> store). A node without a method leaves the previous
snapshot.
"""

from __future__ import annotations

from avadata.errors import AvadataError
from avadata.sources.jsonrpc import JsonRpcClient
from avadata.store.primary.supply import save_supply_anchor
from avadata.store.primary.writer import (
    l1_validations_to_ask,
    replace_staker_live,
    upsert_l1_live,
)
from avadata.store.types import Engine


async def snapshot_supply(engine: Engine, platform: JsonRpcClient) -> None:
    """The node's P-chain supply at its height: the anchor of the supply replay that gives
    every primary staker's potential reward. A node without the method leaves the last one."""
    try:
        answer = await platform.call("platform.getCurrentSupply", {})
        supply, height = int(answer["supply"]), int(answer["height"])
    except (AvadataError, KeyError, TypeError, ValueError):
        return  # no method, or an answer without both numbers: no anchor rather than a crash
    save_supply_anchor(engine, supply, height)


async def snapshot_stakers(engine: Engine, platform: JsonRpcClient) -> None:
    """The node's view of current primary-network stakers (potential rewards, accrued
    commission, uptime): only the node knows these. A node without the method leaves the
    previous snapshot."""
    try:
        answer = await platform.call("platform.getCurrentValidators", {})
    except AvadataError:
        return
    live: list[dict[str, object]] = []
    for v in answer.get("validators") or []:
        live.append(
            {
                "tx_hash": v["txID"],
                "potential_reward": int(v.get("potentialReward") or 0),
                "delegatee_reward": int(v.get("accruedDelegateeReward") or 0),
                "uptime": float(v.get("uptime") or 0),
                "connected": bool(v.get("connected")),
            }
        )
        for d in v.get("delegators") or []:
            live.append(
                {
                    "tx_hash": d["txID"],
                    "potential_reward": int(d.get("potentialReward") or 0),
                    "delegatee_reward": 0,
                    "uptime": float(v.get("uptime") or 0),
                    "connected": bool(v.get("connected")),
                }
            )
    replace_staker_live(engine, live)


async def snapshot_l1_validators(engine: Engine, platform: JsonRpcClient) -> None:
    """The balance each known L1 validator has left (platform.getL1Validator): the continuous
    fee and the refunds of disable / weight 0 are chain state no block carries. The node
    answers 0 for a disabled one and "not found" once it is removed (its balance refunded);
    any other error keeps the previous answer."""
    wanted = l1_validations_to_ask(engine)
    if not wanted:
        return
    try:
        answers = await platform.batch(
            [("platform.getL1Validator", {"validationID": vid}) for vid in wanted]
        )
    except AvadataError:
        return
    live: list[dict[str, object]] = []
    for vid, answer in zip(wanted, answers, strict=True):
        if answer.error is not None:
            if "not found" in str(answer.error.get("message", "")):
                live.append({"validation_id": vid, "balance": 0, "removed": True, "height": 0})
            continue
        result = answer.result or {}
        live.append(
            {
                "validation_id": vid,
                "balance": int(result.get("balance") or 0),
                "removed": False,
                "height": int(result.get("height") or 0),
            }
        )
    upsert_l1_live(engine, live)
