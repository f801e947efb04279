"""The UTXOs that disables and removals of L1 validators refund their balances into. No block
carries them: ask the node for the owner's UTXOs right away. A refund already spent is not
there any more; the writer rebuilds it from the spending input (decode/primary/utxos.py
rebuilt_refund), and a balance already used up refunds nothing.

Stage: indexer (wiring: the store and the batch name the owners, the node answers).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from avadata.decode.codec import api
from avadata.decode.codec.ids import cb58_encode
from avadata.decode.primary.utxos import refund_utxo
from avadata.errors import AvadataError
from avadata.records.primary import Block, NodeUtxo, Owner
from avadata.sources.index_api import decode_hex_bytes
from avadata.sources.jsonrpc import JsonRpcClient
from avadata.store.primary.lookups import l1_owners
from avadata.store.types import Engine

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


async def attach_refunds(engine: Engine, platform: JsonRpcClient, blocks: Sequence[Block]) -> None:
    """Add to each block's `node_utxos` the refund UTXOs its txs made that the node still holds."""
    owners: dict[str, Owner | None] = {
        v.validation_id: v.remaining_balance_owner
        for block in blocks
        for tx in block.txs
        for v in tx.l1_validators
    }
    refunded = {tx.l1_refund.validation_id for b in blocks for tx in b.txs if tx.l1_refund}
    owners.update(l1_owners(engine, sorted(refunded - owners.keys())))
    held: dict[Owner, dict[tuple[str, int], Any]] = {}
    for block in blocks:
        for tx in block.txs:
            refund = tx.l1_refund
            owner = None if refund is None else owners.get(refund.validation_id)
            if refund is None or owner is None:
                continue
            if owner not in held:
                try:
                    utxos = await owned_utxos(platform, ["P-" + a for a in owner.addresses])
                except AvadataError:
                    utxos = []
                held[owner] = {(cb58_encode(u.tx_id), u.output_index): u for u in utxos}
            utxo = held[owner].get((tx.tx_hash, refund.output_index))
            if utxo is not None:
                block.node_utxos.append(NodeUtxo(refund_utxo(utxo, owner), tx.position))
