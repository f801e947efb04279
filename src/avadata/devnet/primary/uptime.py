"""The devnet's uptime and connection rule for simulated nodes (written down in docs/node.md).

Stage: devnet. Pure functions of a NodeID and a time, so the P-chain simulator (which decides
commit or abort of a RewardValidatorTx) and the validators API (uptime, isConnected) agree.

Rule: a node is "flaky" when the first byte of sha256(NodeID) is a multiple of 4 (about one
node in four). A healthy node is always connected and has 100% uptime. A flaky node is online
70% of the time: it is connected during the first 7 of every 10 ten-minute slots (unix time
// 600 % 10 < 7), and its uptime over any span is 70% of it. avalanchego rewards a staker
only if uptime >= 80% (mainnet UptimeRequirement), so a flaky validator's RewardValidatorTx,
and its delegators', are aborted.
"""

from __future__ import annotations

from avadata.decode.codec.ids import sha256

FLAKY_RATIO = 0.7
UPTIME_REQUIREMENT = 0.8
SLOT_SECONDS = 600


def is_flaky(node_id: bytes) -> bool:
    return sha256(node_id)[0] % 4 == 0


def uptime_ratio(node_id: bytes) -> float:
    return FLAKY_RATIO if is_flaky(node_id) else 1.0


def is_connected(node_id: bytes, now: int) -> bool:
    return not is_flaky(node_id) or (now // SLOT_SECONDS) % 10 < 7


def uptime_seconds(node_id: bytes, start: int, now: int) -> int:
    return int(max(0, now - start) * uptime_ratio(node_id))


def uptime_percentage(node_id: bytes) -> float:
    return uptime_ratio(node_id) * 100.0


def earns_reward(node_id: bytes) -> bool:
    return uptime_ratio(node_id) >= UPTIME_REQUIREMENT
