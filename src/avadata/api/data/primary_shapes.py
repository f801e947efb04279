"""Response shapes of the primary-network listings: asset amounts named from the indexed
assets, UTXOs, and the per-tx amounts.

Stage: api. AVAX is named by its well-known asset ID per network (its CreateAssetTx is in the
X-chain genesis, which no index holds); the P-chain holds nothing but AVAX; other X-chain
assets take the names of their indexed CreateAssetTx; an asset whose CreateAssetTx is not
indexed is named "" / "" / 0 rather than invented.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy import Connection

from avadata.api.data import primary_params as params
from avadata.store.queries import primary_txs as queries

AVAX_IDS = {
    "mainnet": "FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMRNDDCYvtSaW",
    "testnet": "U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK",
}
AVAX = ("Avalanche", "AVAX", 9, "secp256k1")
UNNAMED = ("", "", 0, "secp256k1")


@dataclass(slots=True)
class Assets:
    """Names of the assets one response mentions."""

    net: str
    chain: str
    named: dict[str, tuple[str, str, int, str]] = field(default_factory=dict)

    def load(self, conn: Connection, asset_ids: Iterable[str]) -> Assets:
        for r in queries.assets(conn, [a for a in asset_ids if a not in self.named]):
            self.named[r.asset_id] = (r.name, r.symbol, int(r.denomination), r.asset_type)
        return self

    def amount(self, asset_id: str, amount: int) -> dict[str, Any]:
        if asset_id == AVAX_IDS[self.net] or self.chain == "P":
            name, symbol, denomination, kind = AVAX
        else:
            name, symbol, denomination, kind = self.named.get(asset_id, UNNAMED)
        return {
            "assetId": asset_id,
            "name": name,
            "symbol": symbol,
            "denomination": denomination,
            "type": kind,
            "amount": str(amount),
        }

    def sums(self, utxos: list[dict[str, Any]]) -> list[dict[str, Any]]:
        total: dict[str, int] = defaultdict(int)
        for u in utxos:
            total[u["assetId"]] += int(u["amount"])
        return [self.amount(a, v) for a, v in sorted(total.items())]


def tx_amounts(
    assets: Assets, consumed: list[dict[str, Any]], emitted: list[dict[str, Any]]
) -> dict[str, Any]:
    """value: what the tx emits unstaked; amountStaked: its stake outputs; amountBurned: what
    it consumed minus everything it emitted, per asset (the fee)."""
    ins = {a["assetId"]: int(a["amount"]) for a in assets.sums(consumed)}
    outs = {a["assetId"]: int(a["amount"]) for a in assets.sums(emitted)}
    burned = [
        assets.amount(a, v - outs.get(a, 0)) for a, v in sorted(ins.items()) if v > outs.get(a, 0)
    ]
    return {
        "value": assets.sums([u for u in emitted if not u["staked"]]),
        "amountStaked": assets.sums([u for u in emitted if u["staked"]]),
        "amountBurned": burned,
        "amountL1ValidatorBalanceBurned": [],
    }


def utxo_json(row: Any, net: str, assets: Assets) -> dict[str, Any]:
    out: dict[str, Any] = {
        "asset": assets.amount(row.asset_id, int(row.amount)),
        # The SDK's P-chain UTXO requires it; an unspent UTXO names the chain it lives on.
        "consumedOnChainId": params.chain_id_of(net, row.created_on),
        "addresses": orjson.loads(row.addresses),
        "utxoId": row.utxo_id,
        "txHash": row.tx_hash,
        "outputIndex": int(row.output_index),
        "amount": str(row.amount),
        "assetId": row.asset_id,
        "blockNumber": str(row.block_number),
        "blockTimestamp": int(row.block_timestamp),
        "createdOnChainId": params.chain_id_of(net, row.created_on),
        "threshold": int(row.threshold),
        "platformLocktime": int(row.platform_locktime),
        "staked": bool(row.staked),
        "utxoBytes": row.utxo_bytes,
        "utxoType": "STAKE" if row.staked else "TRANSFER",
    }
    if row.stakeable_locktime is not None:
        out["stakeableLocktime"] = int(row.stakeable_locktime)
    if row.consuming_tx_hash is not None:
        out["consumedOnChainId"] = params.chain_id_of(net, row.consumed_on)
        out["consumingTxHash"] = row.consuming_tx_hash
        out["consumingBlockNumber"] = str(row.consuming_block_number)
        out["consumingBlockTimestamp"] = int(row.consuming_block_timestamp)
    if row.reward_type is not None:
        out["rewardType"] = row.reward_type
    return out
