"""What only the node knows now, kept as snapshots: the P-chain supply (the supply replay's
anchor), the current stakers' potential rewards and uptime, the L1 validators' balances.

Stage: indexer (the node's answers -> decode/primary/snapshots.py -> store). A node without a
method leaves the previous snapshot.
"""

from __future__ import annotations

from avadata.decode.primary.snapshots import current_stakers, l1_validator_live
from avadata.errors import AvadataError
from avadata.sources.jsonrpc import JsonRpcClient
from avadata.store.primary.snapshots import (
    l1_validations_to_ask,
    replace_staker_live,
    upsert_l1_live,
)
from avadata.store.primary.supply import save_supply_anchor
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
    replace_staker_live(engine, current_stakers(answer))


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
    found = [
        l1_validator_live(vid, answer.result, answer.error)
        for vid, answer in zip(wanted, answers, strict=True)
    ]
    upsert_l1_live(engine, [x for x in found if x is not None])
