"""Primary-network indexer: Index API containers -> codec -> store, resumable per chain.

Each batch's rows and the chain's cursor commit together, so a restart at any point resumes
at the first container not committed. Block times come from the block bytes; a block that
carries none (pre-fork Apricot) takes its parent's, and only the very first such block falls
back to the node's acceptance time.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson
from sqlalchemy import Engine, select

from avadata.decode.codec import api
from avadata.decode.codec.ids import cb58_encode
from avadata.decode.codec.pchain_blocks import (
    ApricotCommitBlock,
    ApricotProposalBlock,
    BanffCommitBlock,
    BanffProposalBlock,
)
from avadata.decode.codec.xchain import StopVertex, Vertex
from avadata.decode.primary.blocks import BlockFacts, block_facts
from avadata.decode.primary.txs import BlockRows, block_rows, utxo_row
from avadata.errors import AvadataError, RpcTransportError, SourceError
from avadata.indexer import outage
from avadata.sources.index_api import IndexApiSource, decode_hex_bytes, index_url
from avadata.sources.jsonrpc import JsonRpcClient, RetryPolicy
from avadata.store.primary.supply import estimate_rewards, save_supply_anchor
from avadata.store.primary.writer import (
    get_primary_cursor,
    l1_validations_to_ask,
    replace_staker_live,
    upsert_l1_live,
    write_blocks,
)
from avadata.store.schema import primary_l1_validators, primary_validations

log = logging.getLogger(__name__)

# Index API chain letter -> the blockchain ID written in rows (aliases until configured).
CHAINS = ("P", "X", "C")
X_VERTEX_CURSOR = "X/vtx"
PROPOSALS = (BanffProposalBlock, ApricotProposalBlock)
COMMITS = (BanffCommitBlock, ApricotCommitBlock)


@dataclass(slots=True)
class PrimaryProgress:
    blocks: int = 0
    transactions: int = 0


def _accepted_seconds(text: str) -> int:
    # RFC 3339 with up to nanoseconds; Python parses microseconds, so cut the extra digits.
    head, dot, rest = text.partition(".")
    if dot:
        digits = "".join(ch for ch in rest if ch.isdigit())
        tz = rest[len(digits) :]
        text = f"{head}.{digits[:6]}{tz}"
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())


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
) -> int:
    """Index `chain` up to the node's last accepted container; returns the cursor reached.
    `cursor_key` keeps a second index of one chain (X/vtx) on its own cursor."""
    progress = progress or PrimaryProgress()
    cursor = get_primary_cursor(engine, cursor_key or blockchain_id)
    last = await source.last_accepted_index()
    next_index = 0 if cursor is None else cursor + 1
    parent_ts: int | None = None
    while last is not None and next_index <= last:
        if stop is not None and stop():
            break
        containers = await source.range(next_index, min(batch, last - next_index + 1))
        if not containers:
            break
        decoded = [(c, block_facts(chain, c.raw)) for c in containers]
        if chain == "P" and isinstance(decoded[-1][1].inner, PROPOSALS):
            # A proposal's outcome is the next block (commit or abort): keep them together.
            if len(decoded) > 1:
                decoded.pop()
            else:
                more = await source.range(containers[-1].index + 1, 1)
                if not more:
                    break  # its option block is not accepted yet: next pass
                decoded.append((more[0], block_facts(chain, more[0].raw)))
        rows: list[BlockRows] = []
        ended: list[tuple[BlockRows, BlockFacts, int, bool]] = []
        for i, (c, facts) in enumerate(decoded):
            ts = facts.timestamp
            if isinstance(facts.inner, Vertex | StopVertex):
                # A vertex carries no time: the node's acceptance time is the only one there is.
                ts = _accepted_seconds(c.accepted_at)
            elif ts is None:
                ts = parent_ts if parent_ts is not None else _accepted_seconds(c.accepted_at)
            parent_ts = ts
            r = block_rows(chain, blockchain_id, facts, ts)
            if r.stakers.rewarded:
                nxt = decoded[i + 1][1].inner if i + 1 < len(decoded) else None
                ended.append((r, facts, ts, isinstance(nxt, COMMITS)))
            progress.transactions += len(r.txs)
            rows.append(r)
        if ended:
            await attach_rewards(engine, platform, ended, rows)
        if platform is not None and any(r.l1_refunds for r in rows):
            await attach_refunds(engine, platform, rows, [f.height or 0 for _, f in decoded])
        last_c = decoded[-1][0]
        write_blocks(engine, blockchain_id, rows, last_c.index, last_c.id, cursor_key)
        progress.blocks += len(decoded)
        next_index = last_c.index + 1
    return next_index - 1


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
) -> None:
    """Index P, X and C of one node (in `chains` order); follow new containers unless `once`,
    until `stop_event` is set. A follower outlives a node that stays unreachable past a
    request's `retry` policy (`outage.py`); `once` stops at the first failure (a rerun
    resumes)."""
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


async def attach_rewards(
    engine: Engine,
    platform: JsonRpcClient | None,
    ended: list[tuple[BlockRows, BlockFacts, int, bool]],
    batch_rows: list[BlockRows],
) -> None:
    """Reward amounts and UTXOs of the stakers these blocks rewarded. The blocks do not carry
    them: the node answers platform.getRewardUTXOs (its reward UTXOs, kept after they are
    spent). Without a node they stay unknown (NULL), never invented."""
    opened = {o["tx_hash"]: o for r in batch_rows for o in r.stakers.opened}
    wanted = [x["b_tx_hash"] for r, _, _, _ in ended for x in r.stakers.rewarded]
    missing = [t for t in wanted if t not in opened]
    if missing:
        v = primary_validations.c
        with engine.connect() as conn:
            for found in conn.execute(
                select(v.tx_hash, v.kind, v.reward_addresses).where(v.tx_hash.in_(missing))
            ):
                opened[found.tx_hash] = {
                    "kind": found.kind,
                    "reward_addresses": found.reward_addresses,
                }
    answers = (
        await platform.batch(
            [("platform.getRewardUTXOs", {"txID": t, "encoding": "hex"}) for t in wanted]
        )
        if platform is not None
        else []
    )
    paid = dict(zip(wanted, answers, strict=False))
    for r, facts, ts, committed in ended:
        for x in r.stakers.rewarded:
            staker = opened.get(x["b_tx_hash"], {})
            kind = staker.get("kind")
            x["validation_reward"] = x["delegation_reward"] = None
            x["reward_committed"] = committed
            answer = paid.get(x["b_tx_hash"])
            if answer is None or kind is None:
                continue
            utxos = sorted(
                (api.decode_utxo(decode_hex_bytes(h)) for h in answer.unwrap()["utxos"]),
                key=lambda u: u.output_index,
            )
            amounts = [int(getattr(u.output, "amount", 0)) for u in utxos]
            if kind == "validator" and committed and utxos:
                types = ["VALIDATOR"] + ["VALIDATOR_FEE"] * (len(utxos) - 1)
                x["validation_reward"], x["delegation_reward"] = amounts[0], sum(amounts[1:])
            elif kind == "validator":
                types = ["VALIDATOR_FEE"] * len(utxos)
                x["validation_reward"], x["delegation_reward"] = 0, sum(amounts)
            else:
                types = ["DELEGATOR"] * len(utxos)
                x["validation_reward"], x["delegation_reward"] = sum(amounts), 0
            addresses = orjson.loads(str(staker.get("reward_addresses") or "[]"))
            hrp = addresses[0].split("-", 1)[-1].split("1", 1)[0] if addresses else "avax"
            for u, reward_type in zip(utxos, types, strict=True):
                row = utxo_row("P", "P", u, hrp, facts, ts, False)
                row["reward_type"] = reward_type
                _add_p_utxo(r, row, ts)


UTXO_PAGE = 1_024  # avalanchego's largest platform.getUTXOs page


async def owned_utxos(platform: JsonRpcClient, addresses: list[str]) -> list[Any]:
    """Every UTXO the node holds for `addresses` now (platform.getUTXOs, paged)."""
    found: list[Any] = []
    start: dict[str, str] | None = None
    while True:
        params: dict[str, Any] = {"addresses": addresses, "limit": UTXO_PAGE, "encoding": "hex"}
        if start is not None:
            params["startIndex"] = start
        answer = await platform.call("platform.getUTXOs", params)
        utxos = answer.get("utxos") or []
        found += [api.decode_utxo(decode_hex_bytes(h)) for h in utxos]
        if int(answer.get("numFetched") or 0) < UTXO_PAGE or not utxos:
            return found
        start = answer.get("endIndex")


async def attach_refunds(
    engine: Engine, platform: JsonRpcClient, rows: list[BlockRows], heights: list[int]
) -> None:
    """The UTXOs that disables and removals of L1 validators refund their balances into.
    No block carries them: ask the node for the owner's UTXOs right away. A refund already
    spent is not there any more; the writer rebuilds it from the spending input (and a
    balance already used up refunds nothing)."""
    owners = {
        v["validation_id"]: v["remaining_balance_owner"] for r in rows for v in r.l1_validators
    }
    wanted = {f["validation_id"] for r in rows for f in r.l1_refunds} - owners.keys()
    if wanted:
        v = primary_l1_validators.c
        with engine.connect() as conn:
            for found in conn.execute(
                select(v.validation_id, v.remaining_balance_owner).where(
                    v.validation_id.in_(sorted(wanted))
                )
            ):
                owners[found.validation_id] = found.remaining_balance_owner
    held: dict[str, dict[tuple[str, int], Any]] = {}
    for r, height in zip(rows, heights, strict=True):
        for refund in r.l1_refunds:
            owner_text = owners.get(refund["validation_id"])
            if owner_text is None:
                continue
            if owner_text not in held:
                addresses = ["P-" + a for a in orjson.loads(owner_text)["addresses"]]
                try:
                    utxos = await owned_utxos(platform, addresses)
                except AvadataError:
                    utxos = []
                held[owner_text] = {(cb58_encode(u.tx_id), u.output_index): u for u in utxos}
            utxo = held[owner_text].get((refund["tx_hash"], refund["output_index"]))
            if utxo is None:
                continue
            tx = next(t for t in r.txs if t["tx_hash"] == refund["tx_hash"])
            ts = int(tx["block_timestamp"])
            hrp = orjson.loads(owner_text)["addresses"][0].split("1", 1)[0]
            row = utxo_row("P", "P", utxo, hrp, BlockFacts("", height, ts, None), ts, False)
            for a in _add_p_utxo(r, row, ts):
                r.address_txs.append(
                    {
                        "address": a,
                        "blockchain_id": "P",
                        "block_timestamp": ts,
                        "block_number": tx["block_number"],
                        "tx_index": tx["tx_index"],
                        "tx_hash": tx["tx_hash"],
                    }
                )


def _add_p_utxo(r: BlockRows, row: dict[str, Any], ts: int) -> list[str]:
    """A P-chain UTXO the node told of (reward, refund) into the batch, linked to its owners;
    returns the owners."""
    owners: list[str] = row.pop("_addresses")
    r.address_utxos += [
        {"address": a, "chain_id": "P", "block_timestamp": ts, "utxo_id": row["utxo_id"]}
        for a in owners
    ]
    r.utxos.append(row)
    return owners


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
