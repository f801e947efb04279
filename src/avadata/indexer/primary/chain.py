"""One chain of the primary network indexed from its Index API: containers -> decode -> what
the node adds (rewards, refunds) -> store, resumable.

Each batch's rows and the chain's cursor commit together, so a restart at any point resumes
at the first container not committed. Block times come from the block bytes; a block that
carries none (pre-fork Apricot) takes its parent's, and only the very first such block falls
back to the node's acceptance time (decode/primary/blocks.settled_time).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from avadata.decode.primary.blocks import (
    BlockFacts,
    block_facts,
    is_commit,
    is_proposal,
    settled_time,
)
from avadata.decode.primary.txs import block_record
from avadata.decode.primary.utxos import rebuilt_refund
from avadata.errors import WrongChain
from avadata.indexer.primary.refunds import attach_refunds
from avadata.indexer.primary.rewards import attach_rewards
from avadata.records.primary import Block, StakerRewarded
from avadata.sources.index_api import IndexApiSource, IndexedContainer
from avadata.sources.jsonrpc import JsonRpcClient
from avadata.store.metrics.pchain_writer import apply_pchain
from avadata.store.primary.writer import PrimaryApplier, get_primary_cursor, write_blocks
from avadata.store.types import Engine

# The primary indexer's writers in each batch's transaction: the P-chain's metric rollup
# (staking and L1 fee series), here rather than in indexer/appliers.py so that nothing of it
# is imported or run on the EVM path.
PRIMARY_APPLIERS: tuple[PrimaryApplier, ...] = (apply_pchain,)


@dataclass(slots=True)
class PrimaryProgress:
    blocks: int = 0
    transactions: int = 0


async def index_chain(
    engine: Engine,
    source: IndexApiSource,
    chain: str,
    blockchain_id: str,
    *,
    batch: int = 1024,
    stop: Callable[[], bool] | None = None,
    progress: PrimaryProgress | None = None,
    platform: JsonRpcClient | None = None,
    cursor_key: str | None = None,
    appliers: Sequence[PrimaryApplier] | None = None,
) -> int:
    """Index `chain` up to the node's last accepted container; returns the cursor reached.
    `cursor_key` keeps a second index of one chain (X/vtx) on its own cursor; `appliers` run
    in each batch's transaction (default: the P-chain's metric rollup)."""
    if appliers is None:
        appliers = PRIMARY_APPLIERS
    progress = progress or PrimaryProgress()
    cursor = get_primary_cursor(engine, cursor_key or blockchain_id)
    last = await source.last_accepted_index()
    if cursor is not None and (last is None or last < cursor):
        # An Index API never shrinks (avalanchego keeps it across restarts): another node's.
        raise WrongChain(
            f"the Index API at {source.client.url} ends at container {last} of the "
            f"{chain}-chain, but the store holds containers up to {cursor}: is it the node "
            "this store was indexed from? (a new devnet or network needs a new store)"
        )
    next_index = 0 if cursor is None else cursor + 1
    parent_ts: int | None = None
    while last is not None and next_index <= last:
        if stop is not None and stop():
            break
        decoded = await _next_batch(source, chain, next_index, min(batch, last - next_index + 1))
        if not decoded:
            break
        blocks: list[Block] = []
        for c, facts in decoded:
            parent_ts = settled_time(facts, c.accepted_at, parent_ts)
            block = block_record(chain, facts, parent_ts)
            if block.header is not None:
                block.header = block.header._replace(position=c.index)
            blocks.append(block)
        progress.transactions += sum(len(b.txs) for b in blocks)
        if any(isinstance(tx.staker, StakerRewarded) for b in blocks for tx in b.txs):
            # A reward tx's proposal is paid when the next block commits it.
            commits = [is_commit(f) for _, f in decoded[1:]] + [False]
            await attach_rewards(engine, platform, blocks, commits)
        if platform is not None and any(tx.l1_refund for b in blocks for tx in b.txs):
            await attach_refunds(engine, platform, blocks)
        last_c = decoded[-1][0]
        write_blocks(
            engine,
            blockchain_id,
            blocks,
            last_c.index,
            last_c.id,
            cursor_key,
            rebuild_refund=rebuilt_refund,
            appliers=appliers,
        )
        progress.blocks += len(decoded)
        next_index = last_c.index + 1
    return next_index - 1


async def _next_batch(
    source: IndexApiSource, chain: str, start: int, count: int
) -> list[tuple[IndexedContainer, BlockFacts]]:
    """The next containers, decoded; empty when there is nothing to index yet."""
    containers = await source.range(start, count)
    if not containers:
        return []
    decoded = [(c, block_facts(chain, c.raw)) for c in containers]
    if chain == "P" and is_proposal(decoded[-1][1]):
        # A proposal's outcome is the next block (commit or abort): keep them together.
        if len(decoded) > 1:
            decoded.pop()
        else:
            more = await source.range(containers[-1].index + 1, 1)
            if not more:
                return []  # its option block is not accepted yet: next pass
            decoded.append((more[0], block_facts(chain, more[0].raw)))
    return decoded
