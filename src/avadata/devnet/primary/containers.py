"""What the simulators produce: accepted containers, their txs, and the proposervm wrapping.

Stage: devnet (P/X simulators). `Container` is one entry of an Index API index, exactly as
the node would store it (ID, bytes, acceptance time in unix nanoseconds); `TxRecord` is the
simulators' own account of one transaction, kept as an independent truth for tests.

proposervm (post-fork, so every P, X and C block container): each inner block is wrapped in
an unsigned statelessBlock (no certificate, no signature: a block built in the window where
anyone may propose) whose parent is the previous container's ID; a P-chain proposal block's
commit/abort child is wrapped as an option block whose parent is the proposal's wrapper.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from avadata.decode.codec.ids import cb58_encode, sha256
from avadata.decode.codec.proposervm import (
    OptionBlock,
    StatelessBlock,
    encode_proposervm,
)

P_BLOCK = "P/block"
X_BLOCK = "X/block"
X_TX = "X/tx"
X_VTX = "X/vtx"
C_BLOCK = "C/block"
INDEXES = (C_BLOCK, P_BLOCK, X_TX, X_BLOCK, X_VTX)


@dataclass(frozen=True, slots=True)
class Container:
    index: str  # one of INDEXES
    id: bytes
    bytes: bytes
    accepted_ns: int  # the node's acceptance time (unix nanoseconds)
    time: int  # the block's own timestamp (unix seconds), for the simulators' bookkeeping


@dataclass(frozen=True, slots=True)
class TxRecord:
    tx_id: str  # CB58
    chain: str  # P, X or C
    type: str  # the unsigned tx class name (C-chain: ImportTx / ExportTx)
    index: str  # the index whose container carries it (X/vtx txs also appear in X/tx)
    height: int  # inner block height (C: EVM block number; X/vtx: vertex height)
    time: int


@dataclass
class ProposerChain:
    """The proposervm wrapper chain of one VM: remembers the last container's ID."""

    parent: bytes
    containers: list[Container] = field(default_factory=list)

    def wrap(
        self, inner: bytes, time: int, p_height: int, certificate: bytes = b""
    ) -> tuple[bytes, bytes]:
        """(container ID, container bytes) of `inner` wrapped as the next statelessBlock,
        signed by the node whose `certificate` (the devnet's stand-in for its DER staking
        certificate, keys.Node.certificate) is given, else unsigned."""
        unsigned = StatelessBlock(
            parent_id=self.parent,
            timestamp=time,
            p_chain_height=p_height,
            certificate=certificate,
            block=inner,
            signature=b"",
        )
        header = encode_proposervm(unsigned)[:-4]
        # The ID excludes the signature field. The devnet's signature is a stand-in too (no
        # TLS key signs it): a hash of the certificate and the signed bytes.
        signature = sha256(certificate + header) if certificate else b""
        raw = encode_proposervm(dataclasses.replace(unsigned, signature=signature))
        block_id = sha256(header)
        self.parent = block_id
        return block_id, raw

    def wrap_option(self, inner: bytes) -> tuple[bytes, bytes]:
        """A commit/abort child of the proposal block wrapped last."""
        raw = encode_proposervm(OptionBlock(parent_id=self.parent, block=inner))
        option_id = sha256(raw)
        self.parent = option_id
        return option_id, raw


def id_str(raw_id: bytes) -> str:
    return cb58_encode(raw_id)
