"""Signed warp messages from an L1's validator manager, as RegisterL1ValidatorTx and
SetL1ValidatorWeightTx carry them (`vms/platformvm/warp`).

Stage: devnet (P-chain simulator). The message is an AddressedCall from the manager contract
address on the L1's manager chain; it is signed by the L1's current validators: the canonical
set is sorted by uncompressed BLS public key, signers are taken by weight until they hold at
least 67% (avalanchego's default quorum), the bitset marks their positions (big-endian, as Go's
big.Int bytes) and the signature is the BLS aggregate of theirs over the unsigned message
bytes (codec version included).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from avadata.decode.codec.fields import Inline
from avadata.decode.codec.warp import (
    SIGNATURE_TABLE,
    AddressedCall,
    BitSetSignature,
    PChainMessage,
    SignedMessage,
    UnsignedMessage,
    encode_payload,
    encode_pchain_message,
    encode_signed_message,
)
from avadata.decode.codec.writer import Writer
from avadata.devnet.primary.keys import BlsKey, aggregate_signatures

QUORUM_NUM, QUORUM_DEN = 67, 100


@dataclass(frozen=True)
class WarpSigner:
    bls: BlsKey
    weight: int


def unsigned_bytes(msg: UnsignedMessage) -> bytes:
    w = Writer()
    w.version(0)
    Inline(UnsignedMessage).write(w, SIGNATURE_TABLE, msg)
    return w.getvalue()


def sign_l1_message(
    network_id: int,
    source_chain: bytes,
    manager_address: bytes,
    message: PChainMessage,
    validators: Sequence[WarpSigner],
) -> bytes:
    """The signed warp message bytes carrying `message` (RegisterL1Validator or
    L1ValidatorWeight) from the manager contract, signed by a quorum of `validators`."""
    call = AddressedCall(source_address=manager_address, payload=encode_pchain_message(message))
    unsigned = UnsignedMessage(network_id, source_chain, encode_payload(call))
    canonical = sorted(validators, key=lambda v: v.bls.uncompressed_public_key)
    total = sum(v.weight for v in canonical)
    chosen: list[int] = []
    weight = 0
    # Heaviest first: the fewest (slow, pure-Python) BLS signatures that reach the quorum.
    for i in sorted(range(len(canonical)), key=lambda i: (-canonical[i].weight, i)):
        if weight * QUORUM_DEN >= total * QUORUM_NUM:
            break
        chosen.append(i)
        weight += canonical[i].weight
    to_sign = unsigned_bytes(unsigned)
    signature = aggregate_signatures([canonical[i].bls.sign(to_sign) for i in sorted(chosen)])
    bits = sum(1 << i for i in chosen)
    signers = bits.to_bytes((bits.bit_length() + 7) // 8, "big")
    return encode_signed_message(SignedMessage(unsigned, BitSetSignature(signers, signature)))


def addressed_payload(message: PChainMessage) -> bytes:
    """The bytes a RegisterL1Validator validation ID hashes (codec version + type + fields)."""
    return encode_pchain_message(message)
