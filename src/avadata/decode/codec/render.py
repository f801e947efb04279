"""Decoded objects -> JSON-ready dicts.

Keys are camelCase of the field names, which gives the Data API's spellings where it serves
the same value (`txHash`, `blockId`, `nodeId`, `subnetId`, `sourceChain`, `memo` as hex,
`amount` as a decimal string, `blsCredentials`, `subnetOwnershipInfo`,
`l1ValidatorManagerDetails`). IDs print as CB58, node IDs as `NodeID-...`, addresses as
`<chain>-<bech32>` (HRP from the network ID), EVM addresses and other bytes as 0x-hex.
An interface value carries `"type"` (our class name, which is avalanchego's type name).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from avadata.decode.codec import fields as f
from avadata.decode.codec.atomic import ATOMIC_TABLE, AtomicTx
from avadata.decode.codec.components import TransferableInput
from avadata.decode.codec.fields import Iface, Inline, Kind, ListOf
from avadata.decode.codec.ids import (
    bech32_address,
    cb58_encode,
    hrp_for_network,
    node_id_str,
    utxo_id,
)
from avadata.decode.codec.pchain import PChainTx
from avadata.decode.codec.pchain_blocks import PCHAIN_TABLE, block_txs
from avadata.decode.codec.signed import SignedTx
from avadata.decode.codec.xchain import XCHAIN_TABLE, XChainTx

_AMOUNT_AS_STRING = {"amount"}  # the Data API's AssetAmount.amount is a decimal string
# Our class names where the Data API's txType differs.
_TX_TYPE_NAMES = {"UnsignedImportTx": "ImportTx", "UnsignedExportTx": "ExportTx"}


@dataclasses.dataclass(frozen=True)
class Context:
    """How to print addresses: the chain alias and the network's bech32 HRP."""

    chain: str = "P"
    hrp: str = "avax"


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _bytes(kind: Kind, name: str, v: bytes, ctx: Context) -> str:
    if kind is f.ID32:
        return cb58_encode(v)
    if kind is f.SHORT_ID:
        return bech32_address(v, ctx.hrp, ctx.chain)
    if kind is f.NODE_ID or (name.endswith("node_id") and len(v) == 20):
        return node_id_str(v)
    return "0x" + v.hex()


def value(kind: Kind, name: str, v: Any, ctx: Context) -> Any:
    if isinstance(kind, Iface):
        return struct_json(v, ctx, with_type=True)
    if isinstance(kind, Inline):
        return struct_json(v, ctx)
    if isinstance(kind, ListOf):
        return [value(kind.elem, name, item, ctx) for item in v]
    if isinstance(v, bytes):
        return _bytes(kind, name, v, ctx)
    if isinstance(v, int) and not isinstance(v, bool) and name in _AMOUNT_AS_STRING:
        return str(v)
    return v


def struct_json(obj: Any, ctx: Context, with_type: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"type": type(obj).__name__} if with_type else {}
    names: dict[str, str] = obj.__codec_json__
    for name, kind in obj.__codec_fields__:
        v = getattr(obj, name)
        if name == "base":  # avax.BaseTx is inlined in Go; flatten it in JSON too
            out.update(struct_json(v, ctx))
        else:
            out[names.get(name) or camel(name)] = value(kind, name, v, ctx)
    if isinstance(obj, TransferableInput):
        out["utxoId"] = cb58_encode(utxo_id(obj.tx_id, obj.output_index))
    return out


def _network_ctx(unsigned: Any, chain: str, network_id: int | None) -> Context:
    nid = network_id
    if nid is None:
        base = getattr(unsigned, "base", unsigned)
        nid = getattr(base, "network_id", None)
    return Context(chain=chain, hrp=hrp_for_network(nid if nid is not None else 1))


def _extras(u: dict[str, Any]) -> dict[str, Any]:
    """Data API-named views of values the tx already holds."""
    extra: dict[str, Any] = {}
    validator = u.get("validator")
    if isinstance(validator, dict):
        extra["nodeId"] = validator["nodeId"]
        extra["startTimestamp"] = validator["start"]
        extra["endTimestamp"] = validator["end"]
    if "delegationShares" in u:
        extra["delegationFeePercent"] = str(u["delegationShares"] / 10_000)
    signer = u.get("signer")
    if isinstance(signer, dict) and "publicKey" in signer:
        extra["blsCredentials"] = {
            "publicKey": signer["publicKey"],
            "proofOfPossession": signer["proofOfPossession"],
        }
    owner = u.get("owner")
    if isinstance(owner, dict) and "threshold" in owner:
        extra["subnetOwnershipInfo"] = {
            "locktime": owner.get("locktime", 0),
            "threshold": owner["threshold"],
            "addresses": owner["addresses"],
        }
    if "chainId" in u and "address" in u and "validators" in u:
        extra["l1ValidatorManagerDetails"] = {
            "blockchainId": u["chainId"],
            "contractAddress": u["address"],
        }
    if "chainName" in u and "vmId" in u and isinstance(u.get("genesisData"), str):
        extra["blockchainInfo"] = {
            "chainName": u["chainName"],
            "vmId": u["vmId"],
            "genesisData": _genesis(u["genesisData"]),
        }
    return {k: v for k, v in extra.items() if k not in u}


def _genesis(hex_text: str) -> Any:
    """A chain's genesis as the reference serves it: the JSON object of an EVM genesis (what
    subnet-EVM chains carry), else the encoded bytes as they are."""
    try:
        parsed = json.loads(bytes.fromhex(hex_text.removeprefix("0x")))
    except ValueError:
        return hex_text
    return parsed if isinstance(parsed, dict) and "config" in parsed else hex_text


def unsigned_json(unsigned: Any, chain: str, network_id: int | None = None) -> dict[str, Any]:
    ctx = _network_ctx(unsigned, chain, network_id)
    name = type(unsigned).__name__
    body = struct_json(unsigned, ctx)
    return {"txType": _TX_TYPE_NAMES.get(name, name), **body, **_extras(body)}


def tx_json(tx: SignedTx, chain: str, network_id: int | None = None) -> dict[str, Any]:
    table = {"P": PCHAIN_TABLE, "X": XCHAIN_TABLE, "C": ATOMIC_TABLE}[chain]
    ctx = _network_ctx(tx.unsigned, chain, network_id)
    out = {"txHash": tx.tx_id(table), **unsigned_json(tx.unsigned, chain, network_id)}
    out["credentials"] = [struct_json(c, ctx, with_type=True) for c in tx.credentials]
    return out


def _first_network(txs: list[SignedTx]) -> int | None:
    for tx in txs:
        base = getattr(tx.unsigned, "base", tx.unsigned)
        nid = getattr(base, "network_id", None)
        if nid is not None:
            return int(nid)
    return None


def block_json(
    block: Any, block_id: bytes, chain: str, network_id: int | None = None
) -> dict[str, Any]:
    """A P-chain or X-chain block (inner block, not the proposervm wrapper)."""
    txs: list[SignedTx] = list(block_txs(block)) if chain == "P" else list(block.transactions)
    nid = network_id if network_id is not None else _first_network(txs)
    ctx = Context(chain=chain, hrp=hrp_for_network(nid if nid is not None else 1))
    out: dict[str, Any] = {"blockId": cb58_encode(block_id), "blockType": type(block).__name__}
    for name, kind in block.__codec_fields__:
        v = getattr(block, name)
        if name == "transactions":
            out["transactions"] = [tx_json(t, chain, nid) for t in v]
        elif name == "tx":
            out["tx"] = tx_json(v, chain, nid)
        else:
            out[camel(name)] = value(kind, name, v, ctx)
    return out


def utxo_json(utxo: Any, chain: str = "P", network_id: int = 1) -> dict[str, Any]:
    ctx = Context(chain=chain, hrp=hrp_for_network(network_id))
    out = struct_json(utxo, ctx)
    out["utxoId"] = cb58_encode(utxo_id(utxo.tx_id, utxo.output_index))
    out["txHash"] = out.pop("txId")
    return out


__all__ = [
    "AtomicTx",
    "Context",
    "PChainTx",
    "XChainTx",
    "block_json",
    "struct_json",
    "tx_json",
    "unsigned_json",
    "utxo_json",
]
