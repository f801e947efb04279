"""UTXO records from decoded UTXOs: the ones a tx creates, and the P-chain ones only the node
tells of (rewards, L1 refunds), rebuilt where the node no longer has them.

Stage: decode, pure.
"""

from __future__ import annotations

from typing import Any

from avadata.decode.codec import api
from avadata.decode.codec.atomic import ATOMIC_TABLE
from avadata.decode.codec.components import UTXO, LockOut, TransferOutput
from avadata.decode.codec.ids import (
    bech32_address,
    cb58_decode,
    cb58_encode,
    parse_bech32_address,
    utxo_id,
)
from avadata.decode.codec.pchain_blocks import PCHAIN_TABLE
from avadata.decode.codec.xchain import XCHAIN_TABLE
from avadata.records.primary import Owner, SpentRefund, Utxo

TABLES = {"P": PCHAIN_TABLE, "X": XCHAIN_TABLE, "C": ATOMIC_TABLE}


def utxo_record(chain: str, utxo: UTXO, hrp: str, staked: bool = False) -> Utxo:
    out: Any = utxo.output
    stakeable: int | None = None
    if isinstance(out, LockOut):
        stakeable, out = out.locktime, out.output
    return Utxo(
        utxo_id=cb58_encode(utxo_id(utxo.tx_id, utxo.output_index)),
        tx_hash=cb58_encode(utxo.tx_id),
        output_index=utxo.output_index,
        asset_id=cb58_encode(utxo.asset_id),
        amount=int(getattr(out, "amount", 0)),
        addresses=tuple(bech32_address(a, hrp) for a in getattr(out, "addresses", ())),
        threshold=int(getattr(out, "threshold", 0)),
        platform_locktime=int(getattr(out, "locktime", 0)),
        stakeable_locktime=stakeable,
        staked=staked,
        utxo_bytes="0x" + api.encode_utxo(utxo, TABLES[chain]).hex(),
    )


def owner_hrp(owner: Owner) -> str:
    """The network's bech32 prefix, read off an owner's first address."""
    return owner.addresses[0].split("1", 1)[0]


def refund_utxo(utxo: UTXO, owner: Owner) -> Utxo:
    """An L1 refund UTXO the node holds for the validation's owner."""
    return utxo_record("P", utxo, owner_hrp(owner))


def rebuilt_refund(spent: SpentRefund) -> Utxo:
    """An L1 balance refund rebuilt from what spent it: avalanchego pays it as a secp256k1
    TransferOutput with no locktime to the remainingBalanceOwner, so these facts give the
    bytes the node would have served."""
    addresses = [parse_bech32_address(a) for a in spent.owner.addresses]
    hrp = addresses[0][1] if addresses else "avax"
    out = TransferOutput(spent.amount, 0, spent.owner.threshold, tuple(a for _, _, a in addresses))
    utxo = UTXO(cb58_decode(spent.tx_hash), spent.output_index, cb58_decode(spent.asset_id), out)
    return utxo_record("P", utxo, hrp)
