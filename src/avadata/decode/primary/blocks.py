"""Block facts the primary-network indexer needs from an Index API container.

The timestamp comes from the block bytes: Banff P-blocks and X StandardBlocks carry `time`;
otherwise the proposervm wrapper's timestamp; pre-fork Apricot blocks carry none, and the
caller falls back to the parent's time (never the node's acceptance time when avoidable).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from avadata.decode.codec import containers
from avadata.decode.codec.cblock import CChainBlock
from avadata.decode.codec.ids import cb58_encode


@dataclass(frozen=True, slots=True)
class BlockFacts:
    block_id: str
    height: int | None
    timestamp: int | None
    inner: Any


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
    )
