"""Primary-network records turned into the rows the writer inserts (pure: no connection).

Stage: store. One `BlockRows` per block, each table's rows in the blocks' tx order, the UTXOs
the node told of (rewards, refunds) after the block's own. Spends, staker closes and exported
IDs are not rows of a table but what the writer applies (writer.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from avadata.records.primary import (
    Block,
    Header,
    Owner,
    StakerOpened,
    StakerRemoved,
    StakerRewarded,
    Tx,
    Utxo,
)

Row = dict[str, Any]


@dataclass(slots=True)
class BlockRows:
    txs: list[Row] = field(default_factory=list)
    utxos: list[Row] = field(default_factory=list)
    spends: list[Row] = field(default_factory=list)
    address_txs: list[Row] = field(default_factory=list)
    address_utxos: list[Row] = field(default_factory=list)
    asset_txs: list[Row] = field(default_factory=list)
    burns: list[Row] = field(default_factory=list)
    blocks: list[Row] = field(default_factory=list)
    assets: list[Row] = field(default_factory=list)
    l1_validators: list[Row] = field(default_factory=list)
    l1_txs: list[Row] = field(default_factory=list)
    l1_refunds: list[Row] = field(default_factory=list)
    exported_ids: list[str] = field(default_factory=list)  # UTXOs put in shared memory
    opened: list[Row] = field(default_factory=list)  # primary_validations rows
    rewarded: list[Row] = field(default_factory=list)  # reward_tx_hash, ... by b_tx_hash
    removed: list[Row] = field(default_factory=list)  # remove_tx_hash, ... by node and subnet


def owner_json(owner: Owner) -> str:
    """The remaining_balance_owner (or deactivation_owner) column's text."""
    return orjson.dumps({"threshold": owner.threshold, "addresses": list(owner.addresses)}).decode()


def owner_of(text: str) -> Owner:
    found = orjson.loads(text)
    return Owner(int(found["threshold"]), tuple(found["addresses"]))


def utxo_row(blockchain_id: str, u: Utxo, height: int, ts: int) -> Row:
    return {
        "utxo_id": u.utxo_id,
        "created_on": blockchain_id,
        "tx_hash": u.tx_hash,
        "output_index": u.output_index,
        "asset_id": u.asset_id,
        "amount": u.amount,
        "addresses": orjson.dumps(list(u.addresses)).decode(),
        "threshold": u.threshold,
        "platform_locktime": u.platform_locktime,
        "stakeable_locktime": u.stakeable_locktime,
        "staked": u.staked,
        "reward_type": u.reward_type,
        "utxo_bytes": u.utxo_bytes,
        "block_number": height,
        "block_timestamp": ts,
        "consumed_on": None,
        "consuming_tx_hash": None,
        "consuming_block_number": None,
        "consuming_block_timestamp": None,
    }


def address_utxo_rows(blockchain_id: str, u: Utxo, ts: int) -> list[Row]:
    return [
        {"address": a, "chain_id": blockchain_id, "block_timestamp": ts, "utxo_id": u.utxo_id}
        for a in u.addresses
    ]


def address_tx_rows(
    blockchain_id: str,
    addresses: Iterable[str],
    height: int,
    ts: int,
    position: int,
    tx_hash: str,
    key: str = "address",
) -> list[Row]:
    """Link rows of one tx to each of `addresses` (or to each asset, `key` "asset_id")."""
    return [
        {
            key: a,
            "blockchain_id": blockchain_id,
            "block_timestamp": ts,
            "block_number": height,
            "tx_index": position,
            "tx_hash": tx_hash,
        }
        for a in addresses
    ]


def block_row(blockchain_id: str, block: Block, header: Header) -> Row:
    """A P- or X-chain block's row (a vertex's under "X/vtx")."""
    p = header.proposer
    return {
        "blockchain_id": blockchain_id + "/vtx" if header.vertex else blockchain_id,
        "block_id": block.block_id,
        "height": block.height,
        "idx": header.position,
        "block_timestamp": block.timestamp,
        "parent_ids": orjson.dumps(list(header.parent_ids)).decode(),
        "block_type": header.block_type,
        "size": header.size,
        "tx_hashes": orjson.dumps([tx.tx_hash for tx in block.txs]).decode(),
        "proposer_parent_id": p.parent_id if p else None,
        "proposer_p_height": p.p_chain_height if p else None,
        "proposer_timestamp": p.timestamp if p else None,
        "proposer_node_id": p.node_id if p else None,
    }


def block_rows(blockchain_id: str, block: Block) -> BlockRows:
    rows = BlockRows()
    for tx in block.txs:
        _tx_rows(rows, blockchain_id, block, tx)
    if block.header is not None and blockchain_id in ("P", "X"):
        rows.blocks.append(block_row(blockchain_id, block, block.header))
    by_position = {tx.position: tx for tx in block.txs}
    for told in block.node_utxos:
        u = told.utxo
        rows.address_utxos += address_utxo_rows(blockchain_id, u, block.timestamp)
        rows.utxos.append(utxo_row(blockchain_id, u, block.height, block.timestamp))
        if told.position is not None:
            rows.address_txs += address_tx_rows(
                blockchain_id,
                u.addresses,
                block.height,
                block.timestamp,
                told.position,
                by_position[told.position].tx_hash,
            )
    return rows


def _tx_rows(rows: BlockRows, blockchain_id: str, block: Block, tx: Tx) -> None:
    height, ts = block.height, block.timestamp
    for u in tx.utxos:
        rows.address_utxos += address_utxo_rows(blockchain_id, u, ts)
        rows.utxos.append(utxo_row(blockchain_id, u, height, ts))
    for u in tx.exported:
        rows.utxos.append(utxo_row(blockchain_id, u, height, ts))
        rows.exported_ids.append(u.utxo_id)
    rows.spends += [
        {
            "utxo_id": s.utxo_id,
            "asset_id": s.asset_id,
            "amount": s.amount,
            "consumed_on": blockchain_id,
            "consuming_tx_hash": tx.tx_hash,
            "consuming_block_number": height,
            "consuming_block_timestamp": ts,
            "imported": s.imported,
        }
        for s in tx.spends
    ]
    rows.address_txs += address_tx_rows(
        blockchain_id, tx.addresses, height, ts, tx.position, tx.tx_hash
    )
    rows.burns += _burn_rows(blockchain_id, tx)
    if tx.asset is not None:
        rows.assets.append({**tx.asset._asdict(), "blockchain_id": blockchain_id, "created_at": ts})
    if blockchain_id == "X":
        rows.asset_txs += address_tx_rows(
            "X", _assets_of(tx), height, ts, tx.position, tx.tx_hash, key="asset_id"
        )
    _l1_rows(rows, block, tx)
    _staker_rows(rows, block, tx)
    rows.txs.append(
        {
            "blockchain_id": blockchain_id,
            "tx_hash": tx.tx_hash,
            "tx_type": tx.tx_type,
            "block_number": height,
            "block_hash": block.block_id,
            "block_timestamp": ts,
            "tx_index": tx.position,
            "body": orjson.dumps(tx.body).decode(),
        }
    )


# BigInteger's bound: an asset's burn beyond it is not kept (AVAX amounts never reach it).
_BIGINT = 2**63


def _burn_rows(blockchain_id: str, tx: Tx) -> list[Row]:
    """One row per asset the tx burned; the first (the deposit's asset) carries its L1
    deposit."""
    return [
        {
            "asset_id": a,
            "blockchain_id": blockchain_id,
            "tx_hash": tx.tx_hash,
            "burned": v,
            "l1_deposit": tx.l1_deposit if k == 0 else 0,
        }
        for k, (a, v) in enumerate(tx.burned)
        if v < _BIGINT
    ]


def _assets_of(tx: Tx) -> set[str]:
    """The assets a tx creates, emits (exports too) or consumes (imports too)."""
    found = {u.asset_id for u in (*tx.utxos, *tx.exported)} | {s.asset_id for s in tx.spends}
    if tx.asset is not None:
        found.add(tx.asset.asset_id)
    return found


def _l1_rows(rows: BlockRows, block: Block, tx: Tx) -> None:
    if tx.l1_refund is not None:
        rows.l1_refunds.append({**tx.l1_refund._asdict(), "tx_hash": tx.tx_hash})
    rows.l1_txs += [
        {
            "validation_id": validation_id,
            "block_timestamp": block.timestamp,
            "block_number": block.height,
            "tx_index": tx.position,
            "tx_hash": tx.tx_hash,
        }
        for validation_id in tx.l1_validations
    ]
    rows.l1_validators += [
        {
            "validation_id": v.validation_id,
            "subnet_id": v.subnet_id,
            "node_id": v.node_id,
            "created_tx_hash": tx.tx_hash,
            "remaining_balance_owner": None
            if v.remaining_balance_owner is None
            else owner_json(v.remaining_balance_owner),
            "deactivation_owner": None
            if v.deactivation_owner is None
            else owner_json(v.deactivation_owner),
        }
        for v in tx.l1_validators
    ]


def _staker_rows(rows: BlockRows, block: Block, tx: Tx) -> None:
    s, ts = tx.staker, block.timestamp
    if isinstance(s, StakerOpened):
        opened = s._asdict()
        opened["reward_addresses"] = orjson.dumps(list(s.reward_addresses)).decode()
        rows.opened.append({"tx_hash": tx.tx_hash, **opened, "block_timestamp": ts})
    elif isinstance(s, StakerRewarded):
        paid = {r.staker_tx_hash: r for r in block.rewards}.get(s.staker_tx_hash)
        rows.rewarded.append(
            {
                "b_tx_hash": s.staker_tx_hash,
                "reward_tx_hash": tx.tx_hash,
                "reward_timestamp": ts,
                "validation_reward": None if paid is None else paid.validation_reward,
                "delegation_reward": None if paid is None else paid.delegation_reward,
                "reward_committed": None if paid is None else paid.committed,
            }
        )
    elif isinstance(s, StakerRemoved):
        rows.removed.append(
            {
                "b_node_id": s.node_id,
                "b_subnet_id": s.subnet_id,
                "remove_tx_hash": tx.tx_hash,
                "remove_timestamp": ts,
            }
        )
