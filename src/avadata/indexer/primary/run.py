"""Primary-network indexer: P, X and C of one node, each chain in turn (chain.py), then the
platform snapshots (snapshots.py); once, or following the node.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from avadata.errors import AvadataError, RpcTransportError, SourceError
from avadata.indexer import outage
from avadata.indexer.identity import record_primary_network
from avadata.indexer.primary.chain import index_chain
from avadata.indexer.primary.snapshots import (
    snapshot_l1_validators,
    snapshot_stakers,
    snapshot_supply,
)
from avadata.indexer.primary.supply import estimate_rewards
from avadata.sources.index_api import IndexApiSource, index_url
from avadata.sources.jsonrpc import JsonRpcClient, RetryPolicy
from avadata.store.types import Engine

log = logging.getLogger(__name__)

# Index API chain letter -> the blockchain ID written in rows (aliases until configured).
CHAINS = ("P", "X", "C")
X_VERTEX_CURSOR = "X/vtx"


async def index_node(
    engine: Engine,
    node: str,
    *,
    once: bool = True,
    poll: float = 2.0,
    batch: int = 1024,
    chains: tuple[str, ...] = CHAINS,
    retry: RetryPolicy | None = None,
    stop_event: asyncio.Event | None = None,
    network_id: int | None = None,
) -> None:
    """Index P, X and C of one node (in `chains` order); follow new containers unless `once`,
    until `stop_event` is set. A follower outlives a node that stays unreachable past a
    request's `retry` policy (`outage.py`); `once` stops at the first failure (a rerun
    resumes). First, the store records the node's network (`network_id`: the operator's word
    for a node without its info API; identity.record_primary_network)."""
    await record_primary_network(engine, node, network_id, retry)
    # avalanchego's Index API refuses JSON-RPC batches: one request per call.
    clients = {c: JsonRpcClient(index_url(node, c), max_batch=1, retry=retry) for c in chains}
    vertices = JsonRpcClient(index_url(node, "X", "vtx"), max_batch=1, retry=retry)
    platform = JsonRpcClient(f"{node.rstrip('/')}/ext/bc/P", max_batch=1, retry=retry)
    rewards = _Rewards()
    wait = poll
    try:
        while stop_event is None or not stop_event.is_set():
            try:
                await _one_pass(engine, clients, vertices, platform, batch, rewards)
                wait = poll
            except SourceError as exc:
                if once:
                    raise
                wait = outage.longer(wait, poll)
                log.warning("primary network at %s: %s; trying again in %.0f s", node, exc, wait)
            if once:
                return
            await outage.pause(wait, stop_event)
    finally:
        for client in [*clients.values(), vertices, platform]:
            await client.aclose()


@dataclass(slots=True)
class _Rewards:
    estimated_at: int | None = None  # the P cursor the formula rewards were last computed at


async def _one_pass(
    engine: Engine,
    clients: dict[str, JsonRpcClient],
    vertices: JsonRpcClient,
    platform: JsonRpcClient,
    batch: int,
    rewards: _Rewards,
) -> None:
    """Every chain up to its node's last accepted container, then the platform snapshots."""
    for chain, client in clients.items():
        if chain == "X" and await _serves_index(vertices):
            # The DAG era before the blocks: block txs spend UTXOs vertex txs created
            # (and the CreateAssetTxs of early assets are there).
            await index_chain(
                engine, IndexApiSource(vertices), "X", "X", cursor_key=X_VERTEX_CURSOR
            )
        if chain == "P":
            # Asked before the pass, so the pass indexes every block up to its height.
            await snapshot_supply(engine, platform)
        reached = await index_chain(
            engine, IndexApiSource(client), chain, chain, batch=batch, platform=platform
        )
        # The replay walks every primary staker: only when P blocks came in.
        if chain == "P" and reached != rewards.estimated_at and estimate_rewards(engine):
            rewards.estimated_at = reached
    await snapshot_stakers(engine, platform)
    await snapshot_l1_validators(engine, platform)


async def _serves_index(client: JsonRpcClient) -> bool:
    """False when the node has no such index (HTTP 404: a node that never ran the DAG, or
    runs without it); any other failure is left to the retrying client."""
    probe = JsonRpcClient(client.url, max_batch=1, retry=RetryPolicy(max_attempts=1))
    try:
        await IndexApiSource(probe).last_accepted_index()
    except RpcTransportError as exc:
        return "HTTP 404" not in str(exc)
    except AvadataError:
        return True
    finally:
        await probe.aclose()
    return True
