"""EVM JSON-RPC fetching: blocks with transactions, receipts, call traces, token metadata, balances.

Sources stage: fetch only; results are the node's JSON, untouched (but for the receipts a trace
implies, built in the same shape: `receipts.py`).

Receipts (`receipts.py`): a block whose traces tell every transaction's gas, adding up to the
header's, has its receipts built from the traces and one `eth_getLogs` per run of such blocks
(the logs checked against the header's logsBloom); in the other blocks a plain transfer's
receipt is implied by its trace, the rest fetched: `eth_getBlockReceipts` for a block that needs
every receipt (one call), else one `eth_getTransactionReceipt` per transaction that needs its
own. A node without `eth_getBlockReceipts` gets per-transaction calls only, one without
`eth_getLogs` fetched receipts only, each decided once per source.
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
from avadata.sources.receipts import (
    GasSearch,
    RefundOdds,
    block_gas,
    gas_adds_up,
    hex_quantity,
    implied_positions,
    implied_receipt,
    whole_block_receipts,
)

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


# Blocks (and their traces) asked per JSON-RPC batch: a whole 50-block chunk in one, since each
# request costs the fetch process its HTTP turn (docs/benchmarks.md). A node that caps a batch's
# answer (25 MB by default in geth and avalanchego) answers the rest when asked again
# (jsonrpc.JsonRpcClient._answer_rest).
BLOCKS_PER_BATCH = 50


class EvmSource:
    def __init__(
        self,
        client: JsonRpcClient,
        *,
        blocks_per_batch: int = BLOCKS_PER_BATCH,
        imply_receipts: bool = True,
    ) -> None:
        self.client = client
        self.blocks_per_batch = blocks_per_batch
        self._block_receipts: bool | None = None
        self._traces: TraceStyle | None = None
        self._order: tuple[TraceStyle, TraceStyle] | None = None
        # Receipts implied by traces instead of fetched (receipts.py); off = fetch every one.
        self.imply_receipts = imply_receipts
        self.implied_receipts = 0
        # Which methods earned refunds in the gas searches so far (receipts.RefundOdds).
        self.refund_odds = RefundOdds()
        # False once the node refused eth_getLogs as missing: whole blocks are then not implied.
        self._logs_ok = True
        self.receipt_refetches = 0

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
        parts = await asyncio.gather(*(self._blocks_and_traces(g) for g in groups))
        # Receipts follow, for the whole range at once: which ones are needed depends on both
        # (receipts.py), and a gas search takes several rounds, each one request per range.
        return await self._with_receipts(
            [b for blocks, _ in parts for b in blocks], [t for _, traces in parts for t in traces]
        )

    async def _blocks_and_traces(
        self, numbers: list[int]
    ) -> tuple[list[dict[str, Any]], list[tuple[TraceStyle, list[Any]]]]:
        blocks_results, traces = await asyncio.gather(
            self.client.batch([("eth_getBlockByNumber", [_hex(n), True]) for n in numbers]),
            self._traces_for(numbers),
        )
        blocks: list[dict[str, Any]] = []
        for n, r in zip(numbers, blocks_results, strict=True):
            block = r.unwrap()
            if block is None:
                raise SourceError(f"block {n} is not available on the node yet")
            blocks.append(block)
        for b, (style, tr) in zip(blocks, traces, strict=True):
            # Before any receipt is asked: the receipts to ask depend on the traces.
            if style is TraceStyle.GETH and len(tr) != len(b["transactions"]):
                raise SourceError(f"block {b['number']}: trace count differs from transactions")
        return blocks, traces

    async def _with_receipts(
        self, blocks: list[dict[str, Any]], traces: list[tuple[TraceStyle, list[Any]]]
    ) -> list[RawBlock]:
        gas = [
            block_gas(b, style, tr, self.refund_odds)
            if self.imply_receipts and self._logs_ok
            else None
            for b, (style, tr) in zip(blocks, traces, strict=True)
        ]
        whole = [i for i, g in enumerate(gas) if g is not None]
        rest = [i for i, g in enumerate(gas) if g is None]
        logs, fetched, _ = await asyncio.gather(
            self._block_logs([blocks[i] for i in whole]),
            self._receipts([blocks[i] for i in rest], [traces[i] for i in rest]),
            self._search_gas([g for g in gas if isinstance(g, GasSearch)]),
        )
        receipts: list[list[dict[str, Any]] | None] = [None] * len(blocks)
        for i, rc in zip(rest, fetched, strict=True):
            receipts[i] = rc
        for i in whole:
            got = None
            g = gas[i]
            w = g.result() if isinstance(g, GasSearch) else g
            if logs is not None and w is not None:
                got = whole_block_receipts(blocks[i], w, logs.get(int(blocks[i]["number"], 16), []))
            if got is not None:
                self.implied_receipts += len(got) - (g.probed if isinstance(g, GasSearch) else 0)
            receipts[i] = got
        # Whole blocks whose logs did not fit (or could not be had): their receipts after all.
        missing = [i for i, rc in enumerate(receipts) if rc is None]
        if missing:
            again = await self._receipts([blocks[i] for i in missing], [traces[i] for i in missing])
            for i, rc in zip(missing, again, strict=True):
                receipts[i] = rc
        return [
            RawBlock(block=b, receipts=rc or [], trace_style=style, traces=tr)
            for b, rc, (style, tr) in zip(blocks, receipts, traces, strict=True)
        ]

    async def _search_gas(self, searches: list[GasSearch]) -> None:
        """Run the blocks' gas searches (receipts.GasSearch): each round asks, in one batch,
        the receipts every unfinished search needs next."""
        while searches:
            asks: list[tuple[GasSearch, int]] = []
            going: list[GasSearch] = []
            for s in searches:
                probes = s.next_probes()
                if probes:  # [] when a search is over: not asked again
                    going.append(s)
                    asks.extend((s, p) for p in probes)
            searches = going
            if not asks:
                return
            results = await self.client.batch(
                [("eth_getTransactionReceipt", [s.hash_at(p)]) for s, p in asks]
            )
            for (s, p), r in zip(asks, results, strict=True):
                s.learn(p, r.result if r.error is None else None)

    async def _block_logs(self, blocks: list[dict[str, Any]]) -> dict[int, list[Any]] | None:
        """The logs of `blocks` by block number: one eth_getLogs
        per run of consecutive blocks, in one batch. None when the node refused any of them
        (a node without the method, or one that caps its answers): the blocks' receipts are
        then fetched instead, and a node without the method is not asked again."""
        if not blocks:
            return {}
        numbers = [int(b["number"], 16) for b in blocks]
        runs: list[list[int]] = []
        for n in numbers:
            if runs and runs[-1][-1] == n - 1:
                runs[-1].append(n)
            else:
                runs.append([n])
        calls: list[Call] = [
            ("eth_getLogs", [{"fromBlock": _hex(r[0]), "toBlock": _hex(r[-1])}]) for r in runs
        ]
        out: dict[int, list[Any]] = {n: [] for n in numbers}
        for r in await self.client.batch(calls):
            if r.error is not None or not isinstance(r.result, list):
                if _unsupported(r):
                    self._logs_ok = False
                return None
            for lg in r.result:
                number = hex_quantity(lg.get("blockNumber")) if isinstance(lg, dict) else None
                if number in out:
                    out[number].append(lg)
        return out

    async def _receipts(
        self, blocks: list[dict[str, Any]], traces: list[tuple[TraceStyle, list[Any]]]
    ) -> list[list[dict[str, Any]]]:
        """Every transaction's receipt, block by block: fetched, or implied by its trace when
        the block's gas adds up with the implied ones (else the whole block's are fetched)."""
        implied = [
            implied_positions(b, style, tr) if self.imply_receipts else set()
            for b, (style, tr) in zip(blocks, traces, strict=True)
        ]
        fetched = await self._fetch_receipts(blocks, implied)
        out: list[list[dict[str, Any]]] = []
        redo: list[int] = []
        for i, (b, imp, got) in enumerate(zip(blocks, implied, fetched, strict=True)):
            if not imp:
                out.append(got)
                continue
            rest = iter(got)
            txs = b["transactions"]
            full = [implied_receipt(b, tx) if j in imp else next(rest) for j, tx in enumerate(txs)]
            if gas_adds_up(b, full):
                self.implied_receipts += len(imp)
                out.append(full)
            else:
                redo.append(i)
                out.append([])
        if redo:
            self.receipt_refetches += len(redo)
            again = await self._fetch_receipts([blocks[i] for i in redo], [set()] * len(redo))
            for i, rc in zip(redo, again, strict=True):
                out[i] = rc
        return out

    async def _fetch_receipts(
        self, blocks: list[dict[str, Any]], skip: list[set[int]]
    ) -> list[list[dict[str, Any]]]:
        """The receipts of each block's transactions but those at the positions in `skip`, in
        one batch: eth_getBlockReceipts for a block that needs them all (when the node has
        it), else eth_getTransactionReceipt per transaction."""
        calls: list[Call] = []
        plan: list[tuple[bool, int, int]] = []  # (whole block?, first call, calls)
        for b, sk in zip(blocks, skip, strict=True):
            txs = b.get("transactions") or []
            if txs and not sk and self._block_receipts is not False:
                plan.append((True, len(calls), 1))
                calls.append(("eth_getBlockReceipts", [b["number"]]))
            else:
                need = [tx["hash"] for j, tx in enumerate(txs) if j not in sk]
                plan.append((False, len(calls), len(need)))
                calls.extend(("eth_getTransactionReceipt", [h]) for h in need)
        results = await self.client.batch(calls) if calls else []
        asked = [results[at] for is_whole, at, _ in plan if is_whole]
        # Not yet known, or learnt missing by a concurrent batch after this one was sent.
        if asked and self._block_receipts is not True:
            if _unsupported(asked[0]):
                self._block_receipts = False
                return await self._fetch_receipts(blocks, skip)
            self._block_receipts = True
        out: list[list[dict[str, Any]]] = []
        for (whole, at, count), b in zip(plan, blocks, strict=True):
            got = (
                list(results[at].unwrap() or [])
                if whole
                else [r.unwrap() for r in results[at : at + count]]
            )
            if any(r is None for r in got):
                raise SourceError(f"block {b['number']}: the node has no receipt for a transaction")
            out.append(got)
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
