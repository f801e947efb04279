"""Reward amounts and UTXOs of the stakers a batch's blocks reward. The blocks do not carry
them: the node answers platform.getRewardUTXOs (its reward UTXOs, kept after they are spent).
Without a node they stay unknown (NULL), never invented.

Stage: indexer (wiring: the store names the stakers, the node answers, decode splits).
"""

from __future__ import annotations

from collections.abc import Sequence

from avadata.decode.codec import api
from avadata.decode.primary.reward import paid_reward
from avadata.records.primary import Block, NodeUtxo, Reward, StakerOpened, StakerRewarded
from avadata.sources.index_api import decode_hex_bytes
from avadata.sources.jsonrpc import JsonRpcClient
from avadata.store.primary.lookups import staker_kinds
from avadata.store.types import Engine


async def attach_rewards(
    engine: Engine,
    platform: JsonRpcClient | None,
    blocks: Sequence[Block],
    commits: Sequence[bool],
) -> None:
    """Fill each block's `rewards` (and `node_utxos` with the reward UTXOs); `commits[i]`
    tells whether block i's proposal was committed (the next block is a commit)."""
    ended = [
        (block, committed, [tx.staker for tx in block.txs if isinstance(tx.staker, StakerRewarded)])
        for block, committed in zip(blocks, commits, strict=True)
    ]
    wanted = [s.staker_tx_hash for _, _, rewarded in ended for s in rewarded]
    stakers: dict[str, tuple[str, list[str]]] = {
        tx.tx_hash: (tx.staker.kind, list(tx.staker.reward_addresses))
        for block in blocks
        for tx in block.txs
        if isinstance(tx.staker, StakerOpened)
    }
    stakers.update(staker_kinds(engine, [t for t in wanted if t not in stakers]))
    answers = (
        await platform.batch(
            [("platform.getRewardUTXOs", {"txID": t, "encoding": "hex"}) for t in wanted]
        )
        if platform is not None
        else []
    )
    paid = dict(zip(wanted, answers, strict=False))
    for block, committed, rewarded in ended:
        for s in rewarded:
            staker = stakers.get(s.staker_tx_hash)
            answer = paid.get(s.staker_tx_hash)
            if answer is None or staker is None:
                block.rewards.append(Reward(s.staker_tx_hash, None, None, committed))
                continue
            kind, addresses = staker
            utxos = [api.decode_utxo(decode_hex_bytes(h)) for h in answer.unwrap()["utxos"]]
            reward, records = paid_reward(s.staker_tx_hash, kind, committed, utxos, addresses)
            block.rewards.append(reward)
            block.node_utxos += [NodeUtxo(u) for u in records]
