"""EVM JSON-RPC fetching: blocks with transactions, receipts, call traces, token metadata, balances.

Sources stage: fetch only; results are the node's JSON, untouched.

Receipts: `eth_getBlockReceipts` (one call per block); a node without it gets one
`eth_getTransactionReceipt` per transaction, decided once per source.
Traces: `debug_traceBlockByNumber` with `callTracer` (the only tracer Avalanche nodes offer), else
parity-style `trace_block`; the fallback is made per block, so one failing block does not lose the
rest. anvil is the one node asked the other way round: it records parity traces when it mines a
block but re-executes for geth traces, which for old blocks of a long chain takes a minute each
(and fails after `--load-state`). A node with neither is reported as having no traces: the chain
is then marked so, never silently empty.
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
        self._order: tuple[TraceStyle, TraceStyle] | None = None

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
        # Receipts and traces are asked for by block number, so all three go out at once; only
        # the per-transaction receipt fallback has to wait for the blocks' transaction hashes.
        blocks_results, receipts, traces = await asyncio.gather(
            self.client.batch([("eth_getBlockByNumber", [_hex(n), True]) for n in numbers]),
            self._block_receipts_by_number(numbers),
            self._traces_for(numbers),
        )
        blocks: list[dict[str, Any]] = []
        for n, r in zip(numbers, blocks_results, strict=True):
            block = r.unwrap()
            if block is None:
                raise SourceError(f"block {n} is not available on the node yet")
            blocks.append(block)
        if receipts is None:
            receipts = await self._receipts_per_tx(blocks)
        out = []
        for b, rc, (style, tr) in zip(blocks, receipts, traces, strict=True):
            if (
                style is not TraceStyle.NONE
                and len(tr) != len(b["transactions"])
                and style is TraceStyle.GETH
            ):
                raise SourceError(f"block {b['number']}: trace count differs from transactions")
            out.append(RawBlock(block=b, receipts=rc, trace_style=style, traces=tr))
        return out

    async def _block_receipts_by_number(
        self, numbers: list[int]
    ) -> list[list[dict[str, Any]]] | None:
        """eth_getBlockReceipts for each block; None when the node lacks the method."""
        if self._block_receipts is False:
            return None
        results = await self.client.batch([("eth_getBlockReceipts", [_hex(n)]) for n in numbers])
        if self._block_receipts is None and results and _unsupported(results[0]):
            self._block_receipts = False
            return None
        self._block_receipts = True
        return [list(r.unwrap() or []) for r in results]

    async def _receipts_per_tx(self, blocks: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
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

    async def trace_order(self) -> tuple[TraceStyle, TraceStyle]:
        """Which tracer to ask first: geth's, unless the node is anvil (see the module doc)."""
        if self._order is None:
            try:
                version = str(await self.client.call("web3_clientVersion"))
            except RpcError:
                version = ""
            anvil = version.lower().startswith("anvil")
            self._order = (
                (TraceStyle.PARITY, TraceStyle.GETH)
                if anvil
                else (TraceStyle.GETH, TraceStyle.PARITY)
            )
        return self._order

    def trace_call(self, style: TraceStyle, number: int) -> Call:
        if style is TraceStyle.GETH:
            return ("debug_traceBlockByNumber", [_hex(number), {"tracer": "callTracer"}])
        return ("trace_block", [_hex(number)])

    async def _traces_for(self, numbers: list[int]) -> list[tuple[TraceStyle, list[Any]]]:
        none: list[tuple[TraceStyle, list[Any]]] = [(TraceStyle.NONE, [])] * len(numbers)
        if self._traces is TraceStyle.NONE:
            return none
        first, second = await self.trace_order()
        out = list(none)
        answers = await self.client.batch([self.trace_call(first, n) for n in numbers])
        retry: list[int] = []
        for i, r in enumerate(answers):
            if r.error is None and isinstance(r.result, list):
                out[i] = (first, r.result)
                self._traces = self._traces or first
            else:
                retry.append(i)
        if not retry:
            return out
        again = await self.client.batch([self.trace_call(second, numbers[i]) for i in retry])
        for i, r in zip(retry, again, strict=True):
            if r.error is None and isinstance(r.result, list):
                out[i] = (second, r.result)
                self._traces = self._traces or second
            elif (
                self._traces in (None, TraceStyle.NONE)
                and _unsupported(r)
                and _unsupported(answers[i])
            ):
                # Neither tracer exists on this node (concurrent fetches may learn it at
                # once): the whole chain is then untraced, never a mix.
                self._traces = TraceStyle.NONE
                return none
            else:
                err = r.error or answers[i].error or {}
                method = self.trace_call(second, numbers[i])[0]
                raise RpcError(method, int(err.get("code", 0)), str(err.get("message")))
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
