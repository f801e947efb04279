"""Block facts the primary-network indexer needs from an Index API container.

The timestamp comes from the block bytes: Banff P-blocks and X StandardBlocks carry `time`;
otherwise the proposervm wrapper's timestamp; pre-fork Apricot blocks carry none, and take
their parent's time (the node's acceptance time only when there is no parent's: `settled_time`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from avadata.decode.codec import containers
from avadata.decode.codec.cblock import CChainBlock
from avadata.decode.codec.ids import cb58_encode, node_id_str, ripemd160, sha256
from avadata.decode.codec.pchain_blocks import (
    ApricotCommitBlock,
    ApricotProposalBlock,
    BanffCommitBlock,
    BanffProposalBlock,
)
from avadata.decode.codec.proposervm import OptionBlock, StatelessBlock, StatelessGraniteBlock
from avadata.decode.codec.xchain import StopVertex, Vertex
from avadata.records.primary import Header, Proposer

PROPOSALS = (BanffProposalBlock, ApricotProposalBlock)
COMMITS = (BanffCommitBlock, ApricotCommitBlock)


@dataclass(frozen=True, slots=True)
class BlockFacts:
    block_id: str
    height: int | None
    timestamp: int | None
    inner: Any
    header: Header | None = None


def block_timestamp(c: containers.Container) -> int | None:
    if isinstance(c.inner, CChainBlock):
        return int(c.inner.header_dict()["timestamp"])
    inner_time = getattr(c.inner, "time", None)
    if isinstance(inner_time, int):
        return inner_time
    wrapper_time = getattr(c.wrapper, "timestamp", None) if c.wrapper is not None else None
    if isinstance(wrapper_time, int):
        return wrapper_time
    return None


def block_facts(chain: str, raw: bytes) -> BlockFacts:
    c = containers.decode_container(chain, raw)
    height = (
        c.inner.header_dict()["number"]
        if isinstance(c.inner, CChainBlock)
        else getattr(c.inner, "height", None)
    )
    return BlockFacts(
        block_id=cb58_encode(c.id_bytes),
        height=height if isinstance(height, int) else None,
        timestamp=block_timestamp(c),
        inner=c.inner,
        header=_header(c, len(raw)),
    )


def _header(c: containers.Container, size: int) -> Header:
    """Parents, type, size and proposer of a container (its index is the caller's)."""
    vertex = isinstance(c.inner, Vertex | StopVertex)
    parents: tuple[str, ...] = ()
    if vertex:
        parents = tuple(cb58_encode(p) for p in c.inner.parent_ids)
    elif isinstance(c.inner, CChainBlock):
        parents = (cb58_encode(bytes.fromhex(str(c.inner.header_dict()["parentHash"])[2:])),)
    elif hasattr(c.inner, "parent_id"):
        parents = (cb58_encode(c.inner.parent_id),)
    proposer = None
    w = c.wrapper
    if isinstance(w, StatelessBlock | StatelessGraniteBlock):
        cert = w.certificate
        # avalanchego's NodeIDFromCert: ripemd160(sha256(the DER certificate)).
        node = node_id_str(ripemd160(sha256(cert))) if cert else None
        parent = cb58_encode(w.parent_id)
        proposer = Proposer(cb58_encode(c.id_bytes), parent, w.p_chain_height, w.timestamp, node)
        parents = (parent,)
    elif isinstance(w, OptionBlock):  # a commit/abort: its parent is the proposal's wrapper
        parents = (cb58_encode(w.parent_id),)
    return Header(0, parents, type(c.inner).__name__, size, vertex, proposer)


def is_proposal(facts: BlockFacts) -> bool:
    """A P-chain proposal block: its outcome is the next block (commit or abort)."""
    return isinstance(facts.inner, PROPOSALS)


def is_commit(facts: BlockFacts | None) -> bool:
    return facts is not None and isinstance(facts.inner, COMMITS)


def accepted_seconds(text: str) -> int:
    """The Index API's acceptance time (RFC 3339, up to nanoseconds) in Unix seconds."""
    # Python parses microseconds, so cut the extra digits.
    head, dot, rest = text.partition(".")
    if dot:
        digits = "".join(ch for ch in rest if ch.isdigit())
        tz = rest[len(digits) :]
        text = f"{head}.{digits[:6]}{tz}"
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())


def settled_time(facts: BlockFacts, accepted_at: str, parent_ts: int | None) -> int:
    """The block's time: its own, else its parent's (pre-fork Apricot), else the node's
    acceptance time (the first such block; every vertex, which carries no time)."""
    if isinstance(facts.inner, Vertex | StopVertex):
        return accepted_seconds(accepted_at)
    if facts.timestamp is not None:
        return facts.timestamp
    return parent_ts if parent_ts is not None else accepted_seconds(accepted_at)
