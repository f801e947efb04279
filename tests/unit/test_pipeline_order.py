"""The chunks a feed has in flight fetch at once and decode in order, one after another.

Why a test: decoding gives the event loop a turn every few blocks, so a later chunk whose
blocks arrive first would otherwise decode alongside the first chunk and delay the batch the
writer waits on (docs/benchmarks.md). The node here answers the last chunk first.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from avadata.indexer.fetch import produce as produce_module
from avadata.indexer.fetch.produce import produce
from avadata.indexer.fetch.protocol import FeedConfig, NativeBalanceMode
from avadata.records import EvmBatch, RawBlock, TraceStyle

CHUNK = 10
BLOCKS = 30


def _raw(n: int) -> RawBlock:
    block = {
        "number": hex(n),
        "hash": f"0x{n:064x}",
        "parentHash": f"0x{n - 1 if n else 0:064x}",
        "timestamp": hex(1_700_000_000 + n),
        "transactions": [],
    }
    return RawBlock(block=block, receipts=[], trace_style=TraceStyle.NONE, traces=[])


class _BackwardsNode:
    """Answers a chunk later the earlier it starts: the last chunk arrives first."""

    def __init__(self) -> None:
        self.has_traces: bool | None = None

    async def fetch_range(self, start: int, stop: int) -> list[RawBlock]:
        await asyncio.sleep(0.02 * (BLOCKS - start) / CHUNK)
        return [_raw(n) for n in range(start, stop)]


def _decoded_order(monkeypatch: pytest.MonkeyPatch) -> tuple[list[int], list[list[int]]]:
    seen: list[int] = []
    real = produce_module.decode_block

    def recording(chain_id: int, raw: RawBlock, batch: EvmBatch) -> None:
        seen.append(int(raw.block["number"], 16))
        real(chain_id, raw, batch)

    monkeypatch.setattr(produce_module, "decode_block", recording)
    config = FeedConfig(
        rpc_url="http://127.0.0.1:9",
        chain_id=43113,
        prepares=(),
        chunk_blocks=CHUNK,
        window=3,
        native_balances=NativeBalanceMode.OFF,
    )

    async def run() -> list[list[int]]:
        node: Any = _BackwardsNode()
        return [
            [n for n, _, _ in b.chain]
            async for b in produce(node, config, 0, BLOCKS - 1, set(), inline=True)
        ]

    return seen, asyncio.run(run())


def test_chunks_decode_in_order_whatever_order_they_arrive(monkeypatch) -> None:
    seen, batches = _decoded_order(monkeypatch)
    assert batches == [list(range(s, s + CHUNK)) for s in range(0, BLOCKS, CHUNK)]
    # Not interleaved: every block of a chunk before any block of the next.
    assert seen == list(range(BLOCKS))
