"""The credentials a tx's body keeps for the Data API: which signatures unlocked each consumed
UTXO (or each C-chain export's EVM input), with the key each one recovers.

Stage: decode, pure.
"""

from __future__ import annotations

from typing import Any

from avadata.decode.codec.atomic import UnsignedExportTx
from avadata.decode.codec.fields import TypeTable
from avadata.decode.codec.ids import cb58_encode, recover_pubkey, sha256, utxo_id
from avadata.decode.codec.signed import SignedTx
from avadata.decode.codec.xchain import OperationTx


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


def move_credentials(tx: SignedTx, body: dict[str, Any], table: TypeTable) -> None:
    """Replace the body's `credentials` by what they unlocked: each EVM input's (a C-chain
    export: the SDK's EVMInput.credentials), else `_spendCredentials` by consumed UTXO."""
    credentials = body.pop("credentials", None) or []
    if isinstance(tx.unsigned, UnsignedExportTx):
        # One credential per EVM input, in order.
        digest = sha256(tx.unsigned_bytes(table))
        for evm_in, cred in zip(body.get("evmInputs", ()), credentials, strict=False):
            evm_in["credentials"] = [utxo_credential(s, digest) for s in cred.get("signatures", ())]
    elif credentials:
        digest = sha256(tx.unsigned_bytes(table))
        body["_spendCredentials"] = spend_credentials(tx.unsigned, credentials, digest)
