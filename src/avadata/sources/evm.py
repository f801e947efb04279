"""EVM JSON-RPC fetching: blocks with transactions, receipts, call traces, token metadata, balances.

Sources stage: fetch only; results are the node's JSON, untouched.

Receipts: `eth_getBlockReceipts` (one call per block); a node without it gets one
`eth_getTransactionReceipt` per transaction, decided once per source.
Traces: `debug_traceBlockByNumber` with `callTracer` (the only tracer Avalanche nodes offer), else
parity-style `trace_block` (anvil answers it even where its geth-style tracer fails, as after
`--load-state`); the choice is made per block, so one failing block does not lose the rest. A node
with neither is reported as having no traces: the chain is then marked so, never silently empty.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from avadata.errors import RpcError, SourceError
from avadata.records import RawBlock, TraceStyle
from avadata.sources.jsonrpc import Call, JsonRpcClient, RpcResult

METHOD_NOT_FOUND = -32601


def _hex(n: int) -> str:
    return hex(n)


def _unsupported(result: RpcResult) -> bool:
    """True when the error says the method is missing or not usable on this node."""
    err = result.error or {}
    code = err.get("code")
    message = str(err.get("message", "")).lower()
    return (
        code == METHOD_NOT_FOUND
        or "not found" in message
        or "not supported" in message
        or ("does not exist" in message)
    )


class EvmSource:
    def __init__(self, client: JsonRpcClient, *, blocks_per_batch: int = 10) -> None:
        self.client = client
        self.blocks_per_batch = blocks_per_batch
        self._block_receipts: bool | None = None
        self._traces: TraceStyle | None = None

    async def chain_id(self) -> int:
        return int(await self.client.call("eth_chainId"), 16)

    async def head(self) -> int:
        return int(await self.client.call("eth_blockNumber"), 16)

    async def block_hash(self, number: int) -> str | None:
        block = await self.client.call("eth_getBlockByNumber", [_hex(number), False])
        return None if block is None else str(block["hash"])

    @property
    def has_traces(self) -> bool | None:
        """None until the first fetch has probed the node."""
        return None if self._traces is None else self._traces is not TraceStyle.NONE

    async def fetch_range(self, start: int, stop: int) -> list[RawBlock]:
        """Blocks start..stop-1 with receipts and traces, in block order."""
        numbers = list(range(start, stop))
        groups = [
            numbers[i : i + self.blocks_per_batch]
            for i in range(0, len(numbers), self.blocks_per_batch)
        ]
        parts = await asyncio.gather(*(self._fetch_group(g) for g in groups))
        return [raw for part in parts for raw in part]

    async def _fetch_group(self, numbers: list[int]) -> list[RawBlock]:
        blocks_results = await self.client.batch(
            [("eth_getBlockByNumber", [_hex(n), True]) for n in numbers]
        )
        blocks: list[dict[str, Any]] = []
        for n, r in zip(numbers, blocks_results, strict=True):
            block = r.unwrap()
            if block is None:
                raise SourceError(f"block {n} is not available on the node yet")
            blocks.append(block)
        receipts, traces = await asyncio.gather(self._receipts(blocks), self._traces_for(blocks))
        return [
            RawBlock(block=b, receipts=rc, trace_style=style, traces=tr)
            for b, rc, (style, tr) in zip(blocks, receipts, traces, strict=True)
        ]

    async def _receipts(self, blocks: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
        if self._block_receipts is not False:
            results = await self.client.batch(
                [("eth_getBlockReceipts", [b["number"]]) for b in blocks]
            )
            if self._block_receipts is None and results and _unsupported(results[0]):
                self._block_receipts = False
            else:
                self._block_receipts = True
                return [list(r.unwrap() or []) for r in results]
        calls: list[Call] = [
            ("eth_getTransactionReceipt", [tx["hash"]]) for b in blocks for tx in b["transactions"]
        ]
        flat = [r.unwrap() for r in await self.client.batch(calls)] if calls else []
        out: list[list[dict[str, Any]]] = []
        i = 0
        for b in blocks:
            n = len(b["transactions"])
            out.append(flat[i : i + n])
            i += n
        return out

    async def _traces_for(self, blocks: list[dict[str, Any]]) -> list[tuple[TraceStyle, list[Any]]]:
        out: list[tuple[TraceStyle, list[Any]]] = [(TraceStyle.NONE, [])] * len(blocks)
        if self._traces is TraceStyle.NONE:
            return out
        # Blocks without transactions have nothing to trace; skip the calls.
        todo = [i for i, b in enumerate(blocks) if b["transactions"]]
        if not todo:
            return out
        geth = await self.client.batch(
            [
                ("debug_traceBlockByNumber", [blocks[i]["number"], {"tracer": "callTracer"}])
                for i in todo
            ]
        )
        retry: list[int] = []
        for i, r in zip(todo, geth, strict=True):
            if (
                r.error is None
                and isinstance(r.result, list)
                and len(r.result) == len(blocks[i]["transactions"])
            ):
                out[i] = (TraceStyle.GETH, r.result)
                self._traces = self._traces or TraceStyle.GETH
            else:
                retry.append(i)
        if retry:
            parity = await self.client.batch(
                [("trace_block", [blocks[i]["number"]]) for i in retry]
            )
            for i, r in zip(retry, parity, strict=True):
                if r.error is None and isinstance(r.result, list):
                    out[i] = (TraceStyle.PARITY, r.result)
                    self._traces = self._traces or TraceStyle.PARITY
                elif self._traces is None and _unsupported(r):
                    # Neither tracer exists on this node: say so once, for the whole chain.
                    self._traces = TraceStyle.NONE
                    return [(TraceStyle.NONE, [])] * len(blocks)
                else:
                    raise RpcError("trace_block", int((r.error or {}).get("code", 0)), str(r.error))
        return out

    async def token_metadata(
        self, tokens: Sequence[str], block: str = "latest"
    ) -> list[list[RpcResult]]:
        """name(), symbol(), decimals() of each token, as raw eth_call results (errors kept)."""
        selectors = ("0x06fdde03", "0x95d89b41", "0x313ce567")
        calls: list[Call] = [
            ("eth_call", [{"to": t, "data": s}, block]) for t in tokens for s in selectors
        ]
        results = await self.client.batch(calls) if calls else []
        return [results[i * 3 : i * 3 + 3] for i in range(len(tokens))]

    async def balances(self, pairs: Sequence[tuple[str, int]]) -> list[int]:
        """Native balance of each (address, block number), after that block."""
        results = await self.client.batch(
            [("eth_getBalance", [addr, _hex(block)]) for addr, block in pairs]
        )
        return [int(r.unwrap(), 16) for r in results]

    async def eth_call(self, to: str, data: str, block: str = "latest") -> RpcResult:
        (r,) = await self.client.batch([("eth_call", [{"to": to, "data": data}, block])])
        return r
