"""Rows for the store from one decoded primary-network block (pure: no I/O).

Txs keep their codec JSON (Data API field names) as `body`; UTXOs are the outputs a tx
creates on its own chain, the stake outputs of staking txs (staked, returned to their owners
at the staker's end under the staking tx's ID with indices after the base outputs, as
avalanchego does) and the consumption of the UTXOs its inputs name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from avadata.decode.codec import api, render
from avadata.decode.codec.atomic import ATOMIC_TABLE, UnsignedExportTx, UnsignedImportTx
from avadata.decode.codec.cblock import CChainBlock
from avadata.decode.codec.components import (
    UTXO,
    LockOut,
    MintOutput,
    PChainOwner,
    TransferOutput,
)
from avadata.decode.codec.ids import (
    bech32_address,
    cb58_decode,
    cb58_encode,
    hrp_for_network,
    node_id_str,
    parse_bech32_address,
    recover_pubkey,
    sha256,
    utxo_id,
)
from avadata.decode.codec.pchain import (
    ConvertSubnetToL1Tx,
    DisableL1ValidatorTx,
    IncreaseL1ValidatorBalanceTx,
    RegisterL1ValidatorTx,
    SetL1ValidatorWeightTx,
)
from avadata.decode.codec.pchain_blocks import PCHAIN_TABLE, block_txs
from avadata.decode.codec.utxos import consumed, exported, produced
from avadata.decode.codec.warp import (
    L1ValidatorWeight,
    RegisterL1Validator,
    l1_message_of,
    validation_id_of_conversion,
    validation_id_of_registration,
)
from avadata.decode.codec.xchain import XCHAIN_TABLE, CreateAssetTx, OperationTx, Vertex
from avadata.decode.codec.xchain_fx import NftMintOutput, NftTransferOutput
from avadata.decode.primary.blocks import BlockFacts
from avadata.decode.primary.stakers import StakerRows, staker_rows

TABLES = {"P": PCHAIN_TABLE, "X": XCHAIN_TABLE, "C": ATOMIC_TABLE}


@dataclass(slots=True)
class BlockRows:
    txs: list[dict[str, Any]] = field(default_factory=list)
    utxos: list[dict[str, Any]] = field(default_factory=list)
    spends: list[dict[str, Any]] = field(default_factory=list)
    address_txs: list[dict[str, Any]] = field(default_factory=list)
    address_utxos: list[dict[str, Any]] = field(default_factory=list)
    assets: list[dict[str, Any]] = field(default_factory=list)
    l1_validators: list[dict[str, Any]] = field(default_factory=list)
    l1_txs: list[dict[str, Any]] = field(default_factory=list)
    l1_refunds: list[dict[str, Any]] = field(default_factory=list)
    exported_ids: list[str] = field(default_factory=list)  # UTXOs put in shared memory
    stakers: StakerRows = field(default_factory=StakerRows)


def signed_txs(chain: str, inner: Any) -> list[Any]:
    if isinstance(inner, CChainBlock):
        return list(inner.atomic_txs)
    if chain == "P":
        return list(block_txs(inner))
    txs = getattr(inner, "transactions", ())
    # Legacy vertices hold tx bytes; Cortina blocks hold decoded txs.
    return [api.decode_x_tx(t) if isinstance(t, bytes) else t for t in txs]


def utxo_row(
    chain: str, blockchain_id: str, utxo: UTXO, hrp: str, facts: BlockFacts, ts: int, staked: bool
) -> dict[str, Any]:
    out: Any = utxo.output
    stakeable: int | None = None
    if isinstance(out, LockOut):
        stakeable, out = out.locktime, out.output
    addresses = [bech32_address(a, hrp) for a in getattr(out, "addresses", ())]
    return {
        "utxo_id": cb58_encode(utxo_id(utxo.tx_id, utxo.output_index)),
        "created_on": blockchain_id,
        "tx_hash": cb58_encode(utxo.tx_id),
        "output_index": utxo.output_index,
        "asset_id": cb58_encode(utxo.asset_id),
        "amount": int(getattr(out, "amount", 0)),
        "addresses": orjson.dumps(addresses).decode(),
        "threshold": int(getattr(out, "threshold", 0)),
        "platform_locktime": int(getattr(out, "locktime", 0)),
        "stakeable_locktime": stakeable,
        "staked": staked,
        "reward_type": None,
        "utxo_bytes": "0x" + api.encode_utxo(utxo, TABLES[chain]).hex(),
        "block_number": facts.height or 0,
        "block_timestamp": ts,
        "consumed_on": None,
        "consuming_tx_hash": None,
        "consuming_block_number": None,
        "consuming_block_timestamp": None,
        "_addresses": addresses,
    }


def refund_utxo_row(
    blockchain_id: str,
    tx_hash: str,
    index: int,
    asset_id: str,
    amount: int,
    owner: dict[str, Any],
    height: int,
    ts: int,
) -> dict[str, Any]:
    """The row of an L1 balance refund rebuilt from what spent it: avalanchego pays it as a
    secp256k1 TransferOutput with no locktime to the remainingBalanceOwner, so these facts
    give the bytes the node would have served."""
    addresses = [parse_bech32_address(a) for a in owner["addresses"]]
    hrp = addresses[0][1] if addresses else "avax"
    out = TransferOutput(amount, 0, int(owner["threshold"]), tuple(a for _, _, a in addresses))
    utxo = UTXO(cb58_decode(tx_hash), index, cb58_decode(asset_id), out)
    return utxo_row("P", blockchain_id, utxo, hrp, BlockFacts("", height, ts, None), ts, False)


def asset_row(unsigned: CreateAssetTx, tx_hash: str, blockchain_id: str, ts: int) -> dict[str, Any]:
    """The asset a CreateAssetTx defines. `nft` when its initial states hold nftfx outputs;
    `variable` cap when any initial state is a mint output (more units or NFTs can follow)."""
    outs = [o for state in unsigned.initial_states for o in state.outputs]
    nft = any(isinstance(o, NftMintOutput | NftTransferOutput) for o in outs)
    mintable = any(isinstance(o, MintOutput | NftMintOutput) for o in outs)
    return {
        "asset_id": tx_hash,
        "blockchain_id": blockchain_id,
        "name": unsigned.name,
        "symbol": unsigned.symbol,
        "denomination": int(unsigned.denomination),
        "asset_type": "nft" if nft else "secp256k1",
        "cap": "variable" if mintable else "fixed",
        "created_at": ts,
    }


def asset_details(row: dict[str, Any]) -> dict[str, Any]:
    """XChainAssetDetails of an asset row."""
    return {
        "assetId": row["asset_id"],
        "name": row["name"],
        "symbol": row["symbol"],
        "denomination": int(row["denomination"]),
        "type": row["asset_type"],
        "createdAtTimestamp": int(row["created_at"]),
        "cap": row["cap"],
    }


def _l1_entry(
    vid: bytes,
    node_id: bytes | None = None,
    subnet_id: bytes | None = None,
    weight: int | None = None,
    balance_change: int | None = None,
    bls: tuple[bytes, bytes] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"validationId": cb58_encode(vid), "validationIdHex": "0x" + vid.hex()}
    if node_id is not None:
        out["nodeId"] = node_id_str(node_id)
    if subnet_id is not None:
        out["subnetId"] = cb58_encode(subnet_id)
    if weight is not None:
        out["weight"] = weight
    if balance_change is not None:
        out["balanceChange"] = balance_change
    if bls is not None:
        out["blsCredentials"] = {
            "publicKey": "0x" + bls[0].hex(),
            "proofOfPossession": "0x" + bls[1].hex(),
        }
    return out


def l1_details(unsigned: Any) -> list[dict[str, Any]]:
    """The `l1ValidatorDetails` entries of a P-chain tx as far as the tx itself carries them,
    one per L1 validation it touches. Later txs name only the validation ID, and the balance
    left is chain state (continuous fee, refunds): the API completes them from the store
    (node, subnet, BLS key of the creating tx; the weight an increase or disable leaves as it
    was) and from the node's snapshot (remainingBalance)."""
    if isinstance(unsigned, ConvertSubnetToL1Tx):
        return [
            _l1_entry(
                validation_id_of_conversion(unsigned.subnet_id, i),
                v.node_id,
                unsigned.subnet_id,
                v.weight,
                v.balance,
                (v.public_key, v.proof_of_possession),
            )
            for i, v in enumerate(unsigned.validators)
        ]
    if isinstance(unsigned, RegisterL1ValidatorTx | SetL1ValidatorWeightTx):
        _, call, message = l1_message_of(unsigned.message)
        if isinstance(message, RegisterL1Validator) and isinstance(unsigned, RegisterL1ValidatorTx):
            return [
                _l1_entry(
                    validation_id_of_registration(call.payload),
                    message.node_id,
                    message.subnet_id,
                    message.weight,
                    unsigned.balance,
                    (message.bls_public_key, unsigned.proof_of_possession),
                )
            ]
        if isinstance(message, L1ValidatorWeight):
            return [_l1_entry(message.validation_id, weight=message.weight)]
        return []
    if isinstance(unsigned, IncreaseL1ValidatorBalanceTx):
        return [_l1_entry(unsigned.validation_id, balance_change=unsigned.balance)]
    if isinstance(unsigned, DisableL1ValidatorTx):
        # Its refund (the balance left) is chain state, not in the tx: no balanceChange.
        return [_l1_entry(unsigned.validation_id)]
    return []


def refund_owners(unsigned: Any) -> dict[bytes, PChainOwner]:
    """validation ID -> remainingBalanceOwner of each L1 validation this tx creates: who a
    later disable or removal refunds the balance to (the refund tx names only the ID)."""
    if isinstance(unsigned, ConvertSubnetToL1Tx):
        return {
            validation_id_of_conversion(unsigned.subnet_id, i): v.remaining_balance_owner
            for i, v in enumerate(unsigned.validators)
        }
    if isinstance(unsigned, RegisterL1ValidatorTx):
        _, call, message = l1_message_of(unsigned.message)
        if isinstance(message, RegisterL1Validator):
            return {validation_id_of_registration(call.payload): message.remaining_balance_owner}
    return {}


def refunded_validation(unsigned: Any, details: list[dict[str, Any]]) -> str | None:
    """The validation whose balance this tx returns to its owner: a disable, or a weight
    message setting 0 (the validator is removed)."""
    if isinstance(unsigned, DisableL1ValidatorTx):
        return str(details[0]["validationId"])
    if isinstance(unsigned, SetL1ValidatorWeightTx) and details and details[0]["weight"] == 0:
        return str(details[0]["validationId"])
    return None


def owner_json(owner: PChainOwner, hrp: str) -> str:
    addresses = [bech32_address(a, hrp) for a in owner.addresses]
    return orjson.dumps({"threshold": int(owner.threshold), "addresses": addresses}).decode()


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


def utxo_credential(signature: str, digest: bytes) -> dict[str, str]:
    """A UtxoCredential: the signature and the compressed secp256k1 key it recovers over the
    sha256 of the unsigned tx (0x hex, as the signature). The chain verified it when it
    accepted the tx; a signature that recovers no key is served without one."""
    try:
        key = recover_pubkey(bytes.fromhex(signature.removeprefix("0x")), digest)
    except ValueError:
        return {"signature": signature}
    return {"signature": signature, "publicKey": "0x" + key.hex()}


def spend_credentials(
    unsigned: Any, credentials: list[dict[str, Any]], digest: bytes
) -> dict[str, list[dict[str, str]]]:
    """The UtxoCredentials that unlocked each consumed UTXO, by UTXO ID. avalanchego lines the
    credentials up with the inputs, then the imported inputs, then one per operation (which
    covers all of that operation's UTXOs); a subnet-auth credential comes after them all."""
    base = getattr(unsigned, "base", None)
    inputs = [*getattr(base, "inputs", ()), *getattr(unsigned, "imported_inputs", ())]
    groups = [[utxo_id(i.tx_id, i.output_index)] for i in inputs]
    if isinstance(unsigned, OperationTx):
        groups += [
            [utxo_id(u.tx_id, u.output_index) for u in op.utxo_ids] for op in unsigned.operations
        ]
    out: dict[str, list[dict[str, str]]] = {}
    for group, cred in zip(groups, credentials, strict=False):
        unlocked = [utxo_credential(sig, digest) for sig in cred.get("signatures", ())]
        for spent in group:
            out[cb58_encode(spent)] = unlocked
    return out


def block_rows(chain: str, blockchain_id: str, facts: BlockFacts, ts: int) -> BlockRows:
    """`ts` is the block time the caller settled on (facts.timestamp or the parent's)."""
    rows = BlockRows()
    table = TABLES[chain]
    for position, tx in enumerate(signed_txs(chain, facts.inner)):
        tx_id = tx.id_bytes(table)
        body = render.tx_json(tx, chain)
        credentials = body.pop("credentials", None) or []
        if isinstance(tx.unsigned, UnsignedExportTx):
            # One credential per EVM input, in order: the SDK's EVMInput.credentials.
            digest = sha256(tx.unsigned_bytes(table))
            for evm_in, cred in zip(body.get("evmInputs", ()), credentials, strict=False):
                evm_in["credentials"] = [
                    utxo_credential(s, digest) for s in cred.get("signatures", ())
                ]
        elif credentials:
            digest = sha256(tx.unsigned_bytes(table))
            body["_spendCredentials"] = spend_credentials(tx.unsigned, credentials, digest)
        base = getattr(tx.unsigned, "base", tx.unsigned)
        hrp = hrp_for_network(int(getattr(base, "network_id", 1)))
        created = [(u, False) for u in produced(tx.unsigned, tx_id)]
        n_base = len(created)
        stake = getattr(tx.unsigned, "stake_outputs", ())
        created += [
            (UTXO(tx_id, n_base + i, o.asset_id, o.output), True) for i, o in enumerate(stake)
        ]
        tx_hash = cb58_encode(tx_id)
        touched: set[str] = set()
        for utxo, staked in created:
            row = utxo_row(chain, blockchain_id, utxo, hrp, facts, ts, staked)
            for a in row.pop("_addresses"):
                touched.add(a)
                rows.address_utxos.append(
                    {
                        "address": a,
                        "chain_id": blockchain_id,
                        "block_timestamp": ts,
                        "utxo_id": row["utxo_id"],
                    }
                )
            rows.utxos.append(row)
        # Exported outputs live in the destination chain's shared memory until imported: they
        # are the export's emitted UTXOs (and the import's consumed ones), never listed as
        # UTXOs of either chain's addresses.
        for utxo in exported(tx.unsigned, tx_id):
            row = utxo_row(chain, blockchain_id, utxo, hrp, facts, ts, False)
            touched.update(row.pop("_addresses"))
            rows.utxos.append(row)
            rows.exported_ids.append(row["utxo_id"])
        touched.update(evm_addresses(tx.unsigned))
        amounts = input_amounts(tx.unsigned) if chain == "P" else {}
        for ref in consumed(tx.unsigned):
            spent = cb58_encode(ref.utxo_id)
            rows.spends.append(
                {
                    "utxo_id": spent,
                    "asset_id": cb58_encode(ref.asset_id),
                    "amount": amounts.get(spent),
                    "consumed_on": blockchain_id,
                    "consuming_tx_hash": tx_hash,
                    "consuming_block_number": facts.height or 0,
                    "consuming_block_timestamp": ts,
                    "imported": ref.imported,
                }
            )
        for a in sorted(touched):
            rows.address_txs.append(
                {
                    "address": a,
                    "blockchain_id": blockchain_id,
                    "block_timestamp": ts,
                    "block_number": facts.height or 0,
                    "tx_index": position,
                    "tx_hash": tx_hash,
                }
            )
        if chain == "X":
            # DAG-era txs were accepted in vertices (no height of their own), later ones in
            # blocks: the SDK's non-linear and linear shapes.
            if isinstance(facts.inner, Vertex):
                body["chainFormat"] = "non-linear"
                body["vertices"] = [
                    {"hash": facts.block_id, "height": facts.height or 0, "timestamp": ts}
                ]
            else:
                body["chainFormat"] = "linear"
        if isinstance(tx.unsigned, CreateAssetTx):
            created_asset = asset_row(tx.unsigned, tx_hash, blockchain_id, ts)
            rows.assets.append(created_asset)
            body["assetCreated"] = asset_details(created_asset)
        if chain == "P":
            details = l1_details(tx.unsigned)
            if details:
                body["l1ValidatorDetails"] = details
            owners = {
                cb58_encode(k): owner_json(o, hrp) for k, o in refund_owners(tx.unsigned).items()
            }
            refunded = refunded_validation(tx.unsigned, details)
            if refunded is not None:
                index = n_base  # avalanchego's refund index: len(outputs)
                rows.l1_refunds.append(
                    {
                        "utxo_id": cb58_encode(utxo_id(tx_id, index)),
                        "tx_hash": tx_hash,
                        "output_index": index,
                        "validation_id": refunded,
                    }
                )
            for d in details:
                rows.l1_txs.append(
                    {
                        "validation_id": d["validationId"],
                        "block_timestamp": ts,
                        "block_number": facts.height or 0,
                        "tx_index": position,
                        "tx_hash": tx_hash,
                    }
                )
                if "nodeId" in d and "subnetId" in d:
                    rows.l1_validators.append(
                        {
                            "validation_id": d["validationId"],
                            "subnet_id": d["subnetId"],
                            "node_id": d["nodeId"],
                            "created_tx_hash": tx_hash,
                            "remaining_balance_owner": owners.get(d["validationId"]),
                        }
                    )
            staker_rows(tx.unsigned, tx_hash, ts, hrp, rows.stakers)
        rows.txs.append(
            {
                "blockchain_id": blockchain_id,
                "tx_hash": tx_hash,
                "tx_type": str(body["txType"]),
                "block_number": facts.height or 0,
                "block_hash": facts.block_id,
                "block_timestamp": ts,
                "tx_index": position,
                "body": orjson.dumps(body).decode(),
            }
        )
    return rows
