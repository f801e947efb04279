"""Records from one decoded primary-network block (pure: no I/O).

Txs keep their codec JSON (Data API field names) as `body`; UTXOs are the outputs a tx
creates on its own chain, the stake outputs of staking txs (staked, returned to their owners
at the staker's end under the staking tx's ID with indices after the base outputs, as
avalanchego does) and the consumption of the UTXOs its inputs name.
"""

from __future__ import annotations

from typing import Any

from avadata.decode.codec import api, render
from avadata.decode.codec.atomic import UnsignedExportTx, UnsignedImportTx
from avadata.decode.codec.cblock import CChainBlock
from avadata.decode.codec.components import UTXO, MintOutput
from avadata.decode.codec.ids import cb58_encode, hrp_for_network, utxo_id
from avadata.decode.codec.pchain_blocks import block_txs
from avadata.decode.codec.signed import SignedTx
from avadata.decode.codec.utxos import consumed, exported, produced
from avadata.decode.codec.xchain import CreateAssetTx, Vertex
from avadata.decode.codec.xchain_fx import NftMintOutput, NftTransferOutput
from avadata.decode.primary.blocks import BlockFacts
from avadata.decode.primary.burns import burned, l1_deposit
from avadata.decode.primary.credentials import move_credentials
from avadata.decode.primary.l1 import (
    l1_details,
    owner_record,
    refunded_validation,
    validator_owners,
)
from avadata.decode.primary.stakers import staker_record
from avadata.decode.primary.utxos import TABLES, utxo_record
from avadata.records.primary import Asset, Block, L1Refund, L1Validator, Spend, Tx


def signed_txs(chain: str, inner: Any) -> list[Any]:
    if isinstance(inner, CChainBlock):
        return list(inner.atomic_txs)
    if chain == "P":
        return list(block_txs(inner))
    txs = getattr(inner, "transactions", ())
    # Legacy vertices hold tx bytes; Cortina blocks hold decoded txs.
    return [api.decode_x_tx(t) if isinstance(t, bytes) else t for t in txs]


def asset_record(unsigned: CreateAssetTx, tx_hash: str) -> Asset:
    """The asset a CreateAssetTx defines. `nft` when its initial states hold nftfx outputs;
    `variable` cap when any initial state is a mint output (more units or NFTs can follow)."""
    outs = [o for state in unsigned.initial_states for o in state.outputs]
    nft = any(isinstance(o, NftMintOutput | NftTransferOutput) for o in outs)
    mintable = any(isinstance(o, MintOutput | NftMintOutput) for o in outs)
    return Asset(
        asset_id=tx_hash,
        name=unsigned.name,
        symbol=unsigned.symbol,
        denomination=int(unsigned.denomination),
        asset_type="nft" if nft else "secp256k1",
        cap="variable" if mintable else "fixed",
    )


def asset_details(asset: Asset, created_at: int) -> dict[str, Any]:
    """XChainAssetDetails of an asset."""
    return {
        "assetId": asset.asset_id,
        "name": asset.name,
        "symbol": asset.symbol,
        "denomination": asset.denomination,
        "type": asset.asset_type,
        "createdAtTimestamp": created_at,
        "cap": asset.cap,
    }


def input_amounts(unsigned: Any) -> dict[str, int]:
    """UTXO ID -> amount each base input spends (what a refund UTXO held, once spent)."""
    base = getattr(unsigned, "base", None)
    out: dict[str, int] = {}
    for i in getattr(base, "inputs", ()):
        amount = getattr(i.input, "amount", None)
        if amount is not None:
            out[cb58_encode(utxo_id(i.tx_id, i.output_index))] = int(amount)
    return out


def evm_addresses(unsigned: Any) -> list[str]:
    """0x addresses a C-chain atomic tx touches (import outputs, export inputs), lower-case:
    the seed's C-chain atomic lookups by 0x address."""
    if isinstance(unsigned, UnsignedImportTx):
        return sorted({"0x" + o.address.hex() for o in unsigned.outputs})
    if isinstance(unsigned, UnsignedExportTx):
        return sorted({"0x" + i.address.hex() for i in unsigned.inputs})
    return []


def block_record(chain: str, facts: BlockFacts, ts: int) -> Block:
    """`ts` is the block time the caller settled on (blocks.settled_time)."""
    txs = [
        tx_record(chain, facts, ts, position, tx)
        for position, tx in enumerate(signed_txs(chain, facts.inner))
    ]
    return Block(facts.block_id, facts.height or 0, ts, txs, header=facts.header)


def tx_record(chain: str, facts: BlockFacts, ts: int, position: int, tx: SignedTx) -> Tx:
    table = TABLES[chain]
    unsigned: Any = tx.unsigned
    tx_id = tx.id_bytes(table)
    tx_hash = cb58_encode(tx_id)
    body = render.tx_json(tx, chain)
    move_credentials(tx, body, table)
    base = getattr(unsigned, "base", unsigned)
    hrp = hrp_for_network(int(getattr(base, "network_id", 1)))
    base_outputs = produced(unsigned, tx_id)
    stake = getattr(unsigned, "stake_outputs", ())
    n_base = len(base_outputs)
    utxos = [utxo_record(chain, u, hrp) for u in base_outputs]
    utxos += [
        utxo_record(chain, UTXO(tx_id, n_base + i, o.asset_id, o.output), hrp, staked=True)
        for i, o in enumerate(stake)
    ]
    # Exported outputs live in the destination chain's shared memory until imported: they
    # are the export's emitted UTXOs (and the import's consumed ones), never listed as
    # UTXOs of either chain's addresses.
    exports = [utxo_record(chain, u, hrp) for u in exported(unsigned, tx_id)]
    touched = {a for u in (*utxos, *exports) for a in u.addresses}
    touched.update(evm_addresses(unsigned))
    if chain == "X":
        _x_format(body, facts, ts)
    asset = asset_record(unsigned, tx_hash) if isinstance(unsigned, CreateAssetTx) else None
    if asset is not None:
        body["assetCreated"] = asset_details(asset, ts)
    record = Tx(
        tx_hash=tx_hash,
        tx_type=str(body["txType"]),
        position=position,
        body=body,
        utxos=utxos,
        exported=exports,
        spends=_spends(chain, unsigned),
        addresses=sorted(touched),
        asset=asset,
        l1_validations=[],
        l1_validators=[],
        l1_refund=None,
        staker=None,
        burned=_burned(unsigned),
        l1_deposit=l1_deposit(unsigned),
    )
    return _with_p_facts(record, unsigned, tx_id, n_base, hrp) if chain == "P" else record


def _spends(chain: str, unsigned: Any) -> list[Spend]:
    amounts = input_amounts(unsigned) if chain == "P" else {}
    spends = []
    for ref in consumed(unsigned):
        spent = cb58_encode(ref.utxo_id)
        spends.append(Spend(spent, cb58_encode(ref.asset_id), amounts.get(spent), ref.imported))
    return spends


def _burned(unsigned: Any) -> tuple[tuple[str, int], ...]:
    """Its burns net of what it put into L1 validator balances (AVAX, the P-chain's one
    asset)."""
    found = burned(unsigned)
    deposit = l1_deposit(unsigned)
    if not (deposit and found):
        return tuple(found.items())
    # The deposit's asset first, kept even when the tx burned nothing else of it.
    avax = max(found, key=lambda a: found[a])
    rest = tuple((a, v) for a, v in found.items() if a != avax)
    return ((avax, found[avax] - deposit), *rest)


def _x_format(body: dict[str, Any], facts: BlockFacts, ts: int) -> None:
    """DAG-era txs were accepted in vertices (no height of their own), later ones in blocks:
    the SDK's non-linear and linear shapes."""
    if isinstance(facts.inner, Vertex):
        body["chainFormat"] = "non-linear"
        body["vertices"] = [{"hash": facts.block_id, "height": facts.height or 0, "timestamp": ts}]
    else:
        body["chainFormat"] = "linear"


def _with_p_facts(record: Tx, unsigned: Any, tx_id: bytes, n_base: int, hrp: str) -> Tx:
    """The P-chain's part: L1 validations touched, created and refunded, and staking."""
    details = l1_details(unsigned)
    if details:
        record.body["l1ValidatorDetails"] = details
    owners = {
        cb58_encode(k): (owner_record(refund, hrp), owner_record(disable, hrp))
        for k, (refund, disable) in validator_owners(unsigned).items()
    }
    refunded = refunded_validation(unsigned, details)
    refund = None
    if refunded is not None:
        index = n_base  # avalanchego's refund index: len(outputs)
        refund = L1Refund(cb58_encode(utxo_id(tx_id, index)), index, refunded)
    validators = [
        L1Validator(d["validationId"], d["subnetId"], d["nodeId"], *owners.get(vid, (None, None)))
        for d in details
        if "nodeId" in d and "subnetId" in d
        for vid in (d["validationId"],)
    ]
    return record._replace(
        l1_validations=[str(d["validationId"]) for d in details],
        l1_validators=validators,
        l1_refund=refund,
        staker=staker_record(unsigned, hrp),
    )
