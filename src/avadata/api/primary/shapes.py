"""Response shapes of the primary-network listings: asset amounts named from the indexed
assets, UTXOs, and the per-tx amounts.

Stage: api. AVAX is named by its well-known asset ID per network (its CreateAssetTx is in the
X-chain genesis, which no index holds); the P-chain holds nothing but AVAX; other X-chain
assets take the names of their indexed CreateAssetTx; an asset whose CreateAssetTx is not
indexed is named "" / "" / 0 rather than invented.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from avadata.api.primary import params
from avadata.decode.codec import api
from avadata.decode.codec.xchain import XCHAIN_TABLE
from avadata.decode.codec.xchain_fx import NftMintOutput, NftTransferOutput
from avadata.store.primary.queries import txs as queries
from avadata.store.types import Connection

AVAX_IDS = {
    "mainnet": "FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMRNDDCYvtSaW",
    "testnet": "U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK",
}
AVAX = ("Avalanche", "AVAX", 9, "secp256k1")
UNNAMED = ("", "", 0, "secp256k1")


@dataclass(slots=True)
class Assets:
    """What one response's UTXOs need: the names of the assets they hold, and the staking
    periods of the staked ones (their utxoStartTimestamp and utxoEndTimestamp)."""

    net: str
    chain: str
    named: dict[str, tuple[str, str, int, str]] = field(default_factory=dict)
    # tx hash -> (start, end) of the staking periods whose staked UTXOs the response holds
    stake_periods: dict[str, tuple[int, int]] = field(default_factory=dict)

    def load(self, conn: Connection, asset_ids: Iterable[str]) -> Assets:
        for r in queries.assets(conn, [a for a in asset_ids if a not in self.named]):
            self.named[r.asset_id] = (r.name, r.symbol, int(r.denomination), r.asset_type)
        return self

    def amount(self, asset_id: str, amount: int) -> dict[str, Any]:
        if asset_id == AVAX_IDS.get(self.net) or self.chain == "P":
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


# The reference's PChainTransactionType (the SDK's closed enum): a P-chain tx of another type
# (the Helicon auto-renewed validator txs, type IDs 40-42) is served as UNKNOWN, which the SDK
# parses; `txTypes` still selects it by its codec name.
P_TX_TYPES = frozenset(
    (
        "AddValidatorTx AddSubnetValidatorTx AddDelegatorTx CreateChainTx CreateSubnetTx "
        "ImportTx ExportTx AdvanceTimeTx RewardValidatorTx RemoveSubnetValidatorTx "
        "TransformSubnetTx AddPermissionlessValidatorTx AddPermissionlessDelegatorTx BaseTx "
        "TransferSubnetOwnershipTx ConvertSubnetToL1Tx RegisterL1ValidatorTx "
        "SetL1ValidatorWeightTx DisableL1ValidatorTx IncreaseL1ValidatorBalanceTx UNKNOWN"
    ).split()
)


def p_tx_type(name: str) -> str:
    return name if name in P_TX_TYPES else "UNKNOWN"


def l1_deposit(body: dict[str, Any]) -> int:
    """nAVAX the tx moves out of the UTXO set into L1 validators' pay-as-you-go balances (the
    initial balances of a conversion's validators, a registration's balance, a top-up)."""
    kind = body.get("txType")
    if kind == "ConvertSubnetToL1Tx":
        return sum(int(v["balance"]) for v in body.get("validators", ()))
    if kind in ("RegisterL1ValidatorTx", "IncreaseL1ValidatorBalanceTx"):
        return int(body["balance"])
    return 0


def tx_amounts(
    assets: Assets,
    consumed: list[dict[str, Any]],
    emitted: list[dict[str, Any]],
    evm_in: Sequence[dict[str, Any]] = (),
    evm_out: Sequence[dict[str, Any]] = (),
    deposit: int = 0,
    refund: int = 0,
) -> dict[str, Any]:
    """value: what the tx emits unstaked; amountStaked: its stake outputs;
    amountL1ValidatorBalanceBurned: the `deposit` into L1 validator balances; amountBurned:
    what it consumed minus everything it emitted or deposited, per asset (the fee). C-chain
    atomic txs move value between UTXOs and EVM accounts, so their EVM inputs count as
    consumed and their EVM outputs as emitted. A `refund` (an L1 validator's balance
    returned as an emitted AVAX UTXO) came out of that balance, not out of the tx's inputs,
    so it does not offset the fee."""
    ins = {a["assetId"]: int(a["amount"]) for a in assets.sums([*consumed, *evm_in])}
    outs = {a["assetId"]: int(a["amount"]) for a in assets.sums([*emitted, *evm_out])}
    if refund:
        avax = max(outs, key=lambda a: outs[a])
        outs[avax] -= refund
    left = {a: v - outs.get(a, 0) for a, v in sorted(ins.items()) if v > outs.get(a, 0)}
    deposited = []
    if deposit and left:
        # Only the P-chain deposits, and AVAX is the P-chain's one asset (the largest
        # leftover, should a store ever hold another).
        avax = max(left, key=lambda a: left[a])
        left[avax] -= deposit
        deposited = [assets.amount(avax, deposit)]
    return {
        "value": assets.sums([u for u in emitted if not u["staked"]]),
        "amountStaked": assets.sums([u for u in emitted if u["staked"]]),
        "amountBurned": [assets.amount(a, v) for a, v in left.items() if v > 0],
        "amountL1ValidatorBalanceBurned": deposited,
    }


# The output's type ID follows the codec version, tx ID, output index and asset ID (2 + 32 +
# 4 + 32 bytes): reading it from the hex skips decoding every non-NFT UTXO of a page.
_TYPE_ID_HEX = slice(2 + 2 * 70, 2 + 2 * 74)
_NFT_TYPE_IDS = {XCHAIN_TABLE.by_cls[NftMintOutput], XCHAIN_TABLE.by_cls[NftTransferOutput]}


def nft_fields(utxo_bytes: str) -> dict[str, Any]:
    """`groupId` of an nftfx mint or transfer output, and the transfer output's `payload`
    (0x hex, as other bytes); nothing for other outputs. The stored UTXO bytes hold them, so
    no column (nor a re-index of existing stores) is needed."""
    head = utxo_bytes[_TYPE_ID_HEX]
    if len(head) != 8 or int(head, 16) not in _NFT_TYPE_IDS:
        return {}
    out = api.decode_utxo(bytes.fromhex(utxo_bytes[2:]), XCHAIN_TABLE).output
    if not isinstance(out, NftMintOutput | NftTransferOutput):
        return {}
    fields: dict[str, Any] = {"groupId": int(out.group_id)}
    if isinstance(out, NftTransferOutput):
        fields["payload"] = "0x" + out.payload.hex()
    return fields


def utxo_json(
    row: Any, net: str, assets: Assets, shape: str = "P", index_as_string: bool = False
) -> dict[str, Any]:
    """A UTXO in the P-chain shape; in X- and C-chain listings (`shape`) also the SDK's Utxo
    fields, so a page validates as either."""
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
    period = assets.stake_periods.get(row.tx_hash) if row.staked else None
    if period is not None:
        out["utxoStartTimestamp"], out["utxoEndTimestamp"] = period
    if shape != "P":
        out["creationTxHash"] = row.tx_hash
        out["locktime"] = int(row.platform_locktime)
        out["timestamp"] = int(row.block_timestamp)
        if row.consuming_block_timestamp is not None:
            out["consumingTxTimestamp"] = int(row.consuming_block_timestamp)
        if index_as_string:
            out["outputIndex"] = str(row.output_index)
    if shape == "X":
        out.update(nft_fields(row.utxo_bytes))
    return out


def evm_assets(body: dict[str, Any]) -> list[str]:
    return [str(io["assetId"]) for k in ("evmInputs", "evmOutputs") for io in body.get(k, ())]


def chain_fields(
    key: str,
    net: str,
    body: dict[str, Any],
    assets: Assets,
    refund: int = 0,
) -> None:
    """The X-chain (XChainLinear/NonLinearTransaction) and C-chain (CChainImport/Export
    Transaction) fields, added next to the P-chain ones already in `body`."""
    consumed, emitted = body["consumedUtxos"], body["emittedUtxos"]
    evm_in = [
        {"assetId": i["assetId"], "amount": i["amount"], "staked": False}
        for i in body.get("evmInputs", ())
    ]
    evm_out = [
        {"assetId": o["assetId"], "amount": o["amount"], "staked": False}
        for o in body.get("evmOutputs", ())
    ]
    body.update(tx_amounts(assets, consumed, emitted, evm_in, evm_out, l1_deposit(body), refund))
    if key == "P":
        return
    body["timestamp"] = body["blockTimestamp"]
    body["blockHeight"] = int(body["blockNumber"])
    body["amountUnlocked"] = assets.sums([*consumed, *evm_in])
    body["amountCreated"] = assets.sums([*emitted, *evm_out])
    if key == "X":
        body.setdefault("chainFormat", "linear")
        return
    # Atomic txs have no memo; the chain a C-chain import lands on (or an export leaves) is
    # the C-chain itself.
    body.setdefault("memo", "")
    own = params.chain_id_of(net, "C")
    body.setdefault("sourceChain", own)
    body.setdefault("destinationChain", own)
    for o in body.get("evmOutputs", ()):
        o["asset"] = assets.amount(o["assetId"], int(o["amount"]))
    for i in body.get("evmInputs", ()):
        i["asset"] = assets.amount(i["assetId"], int(i["amount"]))
        i.setdefault("credentials", [])


def mark_refund(body: dict[str, Any], refund: int) -> None:
    """A disable or removal took `refund` out of the validation's balance (the reference's
    balanceChange, "negative when returned")."""
    for d in body.get("l1ValidatorDetails", ()):
        d["balanceChange"] = -refund


@dataclass(slots=True)
class L1Facts:
    """What completes the `l1ValidatorDetails` of one page's txs: each validation's node and
    subnet, the node's remaining balance, and its weight-setting txs in chain order."""

    known: dict[str, Any] = field(default_factory=dict)
    # validation ID -> [(position, weight, blsCredentials or None)], oldest first
    history: dict[str, list[tuple[tuple[int, int, int], int, Any]]] = field(default_factory=dict)

    def load(self, conn: Connection, bodies: Iterable[dict[str, Any]]) -> L1Facts:
        ids = [d["validationId"] for b in bodies for d in b.get("l1ValidatorDetails", ())]
        if not ids:
            return self
        self.known = {r.validation_id: r for r in queries.l1_validators(conn, ids)}
        for r in queries.l1_defining_txs(conn, ids):
            for d in orjson.loads(r.body).get("l1ValidatorDetails", ()):
                if d["validationId"] == r.validation_id and "weight" in d:
                    pos = (int(r.block_timestamp), int(r.block_number), int(r.tx_index))
                    entry = (pos, int(d["weight"]), d.get("blsCredentials"))
                    self.history.setdefault(r.validation_id, []).append(entry)
        return self

    def complete(self, body: dict[str, Any], position: tuple[int, int, int]) -> None:
        """Fill in each entry: node and subnet from the validator's creation, the weight the
        last weight-setting tx up to this one left (its own for those txs), the BLS key of
        its creation, and remainingBalance: the node's answer at the last snapshot (0 once
        disabled or removed, and 0 while no node has answered)."""
        for d in body.get("l1ValidatorDetails", ()):
            vid = d["validationId"]
            known = self.known.get(vid)
            if known is not None:
                d.setdefault("nodeId", known.node_id)
                d.setdefault("subnetId", known.subnet_id)
            steps = self.history.get(vid, [])
            upto = steps[: bisect_right([s[0] for s in steps], position)]
            if "weight" not in d:
                d["weight"] = upto[-1][1] if upto else 0
            if "blsCredentials" not in d and steps and steps[0][2] is not None:
                d["blsCredentials"] = steps[0][2]
            balance = known.balance if known is not None else None
            d["remainingBalance"] = int(balance) if balance is not None else 0
