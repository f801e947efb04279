"""Receipts implied by traces and eth_getLogs (sources/receipts.py) are the node's own; a block
whose gas does not add up, or whose logs the header's bloom does not vouch for, falls back to
fetching its receipts.

The truth is the node's eth_getBlockReceipts, asked separately for every block.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest

from avadata.records import TraceStyle
from avadata.sources.evm import EvmSource
from avadata.sources.jsonrpc import Call, JsonRpcClient, RpcResult
from avadata.sources.receipts import (
    GasSearch,
    RefundOdds,
    WholeBlock,
    block_gas,
    implied_positions,
    logs_bloom,
)
from tests.support.fault_proxy import FaultProxy
from tests.support.node import Node

pytestmark = pytest.mark.e2e

# What decode reads from a receipt (the effective gas price aside: decode derives it when absent).
_FIELDS = ("transactionHash", "status", "gasUsed", "contractAddress", "logs")


def _view(receipt: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(receipt.get(k) for k in _FIELDS)


def _fetch(
    url: str,
    numbers: list[int],
    *,
    order: tuple[TraceStyle, TraceStyle] | None = None,
    imply: bool = True,
    blocks_per_batch: int = 10,
    **kw: Any,
) -> tuple[list[Any], EvmSource]:
    async def run() -> tuple[list[Any], EvmSource]:
        async with _Client(url, **kw) as client:
            source = EvmSource(client, imply_receipts=imply, blocks_per_batch=blocks_per_batch)
            if order is not None:
                source._order = order  # ask the other tracer first
            raws = []
            for i in range(0, len(numbers), 25):
                part = numbers[i : i + 25]
                raws += await source.fetch_range(part[0], part[-1] + 1)
            return raws, source

    return asyncio.run(run())


class _Client(JsonRpcClient):
    """The node, except that block headers may claim `extra_gas` more gas used than they did."""

    def __init__(self, url: str, extra_gas: int = 0) -> None:
        super().__init__(url)
        self.extra_gas = extra_gas

    async def batch(self, calls: list[Call]) -> list[RpcResult]:  # type: ignore[override]
        results = await super().batch(calls)
        for (method, _), r in zip(calls, results, strict=True):
            if method == "eth_getBlockByNumber" and self.extra_gas and r.result:
                r.result["gasUsed"] = hex(int(r.result["gasUsed"], 16) + self.extra_gas)
        return results


def _node_receipts(url: str, numbers: list[int]) -> list[list[tuple[Any, ...]]]:
    node = Node(url)
    return [
        [_view(r) for r in rs]
        for rs in node.batch([("eth_getBlockReceipts", [hex(n)]) for n in numbers])
    ]


def test_implied_receipts_are_the_nodes(devnet_chain) -> None:
    numbers = list(range(devnet_chain.head + 1))
    raws, source = _fetch(devnet_chain.rpc_url, numbers)
    expected = _node_receipts(devnet_chain.rpc_url, numbers)
    assert [[_view(r) for r in raw.receipts] for raw in raws] == expected
    txs = sum(len(rs) for rs in expected)
    # Both paths ran: plain transfers implied, the rest fetched; no block needed a second ask.
    assert 0 < source.implied_receipts < txs
    assert source.receipt_refetches == 0


def test_geth_traces_imply_the_same_receipts(devnet_chain) -> None:
    # geth tracing re-executes on anvil: a few blocks only.
    numbers = list(range(devnet_chain.head - 20, devnet_chain.head + 1))
    raws, source = _fetch(devnet_chain.rpc_url, numbers, order=(TraceStyle.GETH, TraceStyle.PARITY))
    assert {raw.trace_style for raw in raws} == {TraceStyle.GETH}
    assert [[_view(r) for r in raw.receipts] for raw in raws] == _node_receipts(
        devnet_chain.rpc_url, numbers
    )
    assert source.implied_receipts > 0


def test_a_block_whose_gas_does_not_add_up_gets_every_receipt_fetched(devnet_chain) -> None:
    numbers = list(range(devnet_chain.head + 1))
    # Headers claiming more gas than every bound together: no block is whole or searched, each
    # plain transfer implied is then found out by the sum.
    raws, source = _fetch(devnet_chain.rpc_url, numbers, extra_gas=10**9)
    assert [[_view(r) for r in raw.receipts] for raw in raws] == _node_receipts(
        devnet_chain.rpc_url, numbers
    )
    assert source.implied_receipts == 0
    # Every block with a plain transfer in it was asked again, whole.
    assert source.receipt_refetches == sum(
        1 for raw in raws if implied_positions(raw.block, raw.trace_style, raw.traces)
    )
    assert source.receipt_refetches > 0


@pytest.mark.parametrize("imply", [True, False])
def test_a_node_without_block_receipts_is_asked_per_transaction(devnet_chain, imply) -> None:
    numbers = list(range(devnet_chain.head + 1))
    refuse = frozenset({"eth_getBlockReceipts"})
    with FaultProxy(devnet_chain.rpc_url, rate=0.0, refuse=refuse) as proxy:
        # Many small groups in flight at once: several learn the method is missing together.
        raws, source = _fetch(proxy.url, numbers, imply=imply, blocks_per_batch=1)
    assert [[_view(r) for r in raw.receipts] for raw in raws] == _node_receipts(
        devnet_chain.rpc_url, numbers
    )
    # Without implying, every block's receipts were wanted whole; implying, the devnet's
    # blocks are all whole, searched or asked per transaction, so the method may never come up.
    assert source._block_receipts is not True
    if not imply:
        assert source._block_receipts is False
    assert (source.implied_receipts > 0) is imply


class _GethGas(JsonRpcClient):
    """anvil, but with its callTracer root frames' gasUsed as geth reports it. anvil's is
    cumulative through the block (a transfer after another reads 42,000); geth's, and
    coreth's, is the transaction's own, its receipt's (callTracer sets it when the transaction
    ends). The header sum rejects anvil's as it comes (`test_geth_traces_imply_the_same_receipts`
    above); this undoes it, so the whole-block path runs on geth-style traces."""

    async def batch(self, calls: list[Call]) -> list[RpcResult]:  # type: ignore[override]
        results = await super().batch(calls)
        for (method, _), r in zip(calls, results, strict=True):
            if method == "debug_traceBlockByNumber" and r.result:
                before = 0
                for item in r.result:
                    frame = item.get("result", item)
                    cumulative = int(frame["gasUsed"], 16)
                    frame["gasUsed"] = hex(cumulative - before)
                    before = cumulative
        return results


def _fetch_geth(
    url: str, numbers: list[int], client: type[_GethGas] = _GethGas
) -> tuple[list[Any], EvmSource]:
    async def run() -> tuple[list[Any], EvmSource]:
        async with client(url) as c:
            source = EvmSource(c)
            source._order = (TraceStyle.GETH, TraceStyle.PARITY)
            return await source.fetch_range(numbers[0], numbers[-1] + 1), source

    return asyncio.run(run())


def test_geth_traces_imply_every_receipt(devnet_chain) -> None:
    """callTracer's root frames carry each receipt's gas: no receipt is asked at all, only
    the logs, and the receipts are the node's."""
    numbers = list(range(devnet_chain.head - 20, devnet_chain.head + 1))
    with FaultProxy(devnet_chain.rpc_url, rate=0.0) as proxy:
        raws, source = _fetch_geth(proxy.url, numbers)
    expected = _node_receipts(devnet_chain.rpc_url, numbers)
    assert [[_view(r) for r in raw.receipts] for raw in raws] == expected
    assert source.implied_receipts == sum(len(rs) for rs in expected) > 0
    asked = {method for method, _ in proxy.forwarded}
    assert not asked & {"eth_getBlockReceipts", "eth_getTransactionReceipt"}
    assert "eth_getLogs" in asked


def test_whole_blocks_are_implied_with_parity_traces_when_no_gas_was_refunded(
    devnet_chain,
) -> None:
    numbers = list(range(devnet_chain.head + 1))
    raws, source = _fetch(devnet_chain.rpc_url, numbers)
    whole = [
        raw
        for raw in raws
        if isinstance(block_gas(raw.block, raw.trace_style, raw.traces), WholeBlock)
    ]
    # Some blocks add up (no refunds), others do not (an ERC-20 balance emptied refunds gas).
    assert 0 < len(whole) < len(raws)
    assert any(
        raw.block["transactions"][i]["input"] != "0x"
        for raw in whole
        for i in range(len(raw.block["transactions"]))
    )
    assert [[_view(r) for r in raw.receipts] for raw in raws] == _node_receipts(
        devnet_chain.rpc_url, numbers
    )
    # More implied than the plain transfers alone: the whole blocks' contract calls too.
    plain = sum(len(implied_positions(r.block, r.trace_style, r.traces)) for r in raws)
    assert source.implied_receipts > plain


def test_refunded_gas_is_found_with_few_receipts(devnet_chain) -> None:
    numbers = list(range(devnet_chain.head + 1))
    with FaultProxy(devnet_chain.rpc_url, rate=0.0) as proxy:
        raws, source = _fetch(proxy.url, numbers)
    assert [[_view(r) for r in raw.receipts] for raw in raws] == _node_receipts(
        devnet_chain.rpc_url, numbers
    )
    searched = [
        raw
        for raw in raws
        if isinstance(block_gas(raw.block, raw.trace_style, raw.traces), GasSearch)
    ]
    assert searched  # blocks with refunds (an ERC-20 balance emptied, an approval cleared)
    code_calls = sum(tx["input"] != "0x" for raw in searched for tx in raw.block["transactions"])
    asked = sum(n for (m, _), n in proxy.forwarded.items() if m == "eth_getTransactionReceipt")
    # Fetching each contract call's receipt, as before the search, asked code_calls.
    assert 0 < asked < code_calls / 2
    assert source.receipt_refetches == 0
    wholly = {p.strip('"') for (m, p) in proxy.forwarded if m == "eth_getBlockReceipts"}
    assert not wholly & {raw.block["number"] for raw in searched}


def _search_all(raws: list[Any], receipts: list[list[Any]], odds: RefundOdds | None):
    """Every gas search of the chain, in block order, each probe answered with the node's own
    receipt: (the searched blocks' gas, the node's gas for them, receipts asked)."""
    found, truth, asked = [], [], 0
    for raw, rs in zip(raws, receipts, strict=True):
        search = block_gas(raw.block, raw.trace_style, raw.traces, odds)
        if not isinstance(search, GasSearch):
            continue
        while probes := search.next_probes():
            for p in probes:
                asked += 1
                search.learn(p, rs[p])
        result = search.result()
        found.append(None if result is None else result.gas)
        truth.append([int(r["gasUsed"], 16) for r in rs])
    return found, truth, asked


def test_the_search_asks_likely_refunds_first_and_finds_the_same_gas(devnet_chain) -> None:
    # RefundOdds only picks which receipt to ask: the gas found is the node's either way, and
    # asking the methods that earned refunds before first takes fewer receipts than halving.
    numbers = list(range(devnet_chain.head + 1))
    raws, _ = _fetch(devnet_chain.rpc_url, numbers)
    receipts = Node(devnet_chain.rpc_url).batch(
        [("eth_getBlockReceipts", [hex(n)]) for n in numbers]
    )
    halved, truth, halving_asked = _search_all(raws, receipts, None)
    guided, _, guided_asked = _search_all(raws, receipts, RefundOdds())
    assert len(truth) >= 10  # blocks with refunds to search
    assert halved == guided == truth
    assert guided_asked < halving_asked


class _NoCumulativeGas(JsonRpcClient):
    """A node whose single receipts lack cumulativeGasUsed (what decode reads is there);
    counts how often each transaction's receipt was asked."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.asked: Counter[str] = Counter()

    async def batch(self, calls: list[Call]) -> list[RpcResult]:  # type: ignore[override]
        results = await super().batch(calls)
        for (method, params), r in zip(calls, results, strict=True):
            if method == "eth_getTransactionReceipt":
                self.asked[params[0]] += 1
                if r.result:
                    del r.result["cumulativeGasUsed"]
        return results


def test_a_search_the_node_cannot_serve_gets_the_receipts_fetched(devnet_chain) -> None:
    numbers = list(range(devnet_chain.head + 1))

    async def run() -> tuple[list[Any], Counter[str]]:
        async with _NoCumulativeGas(devnet_chain.rpc_url) as client:
            return await EvmSource(client).fetch_range(0, devnet_chain.head + 1), client.asked

    raws, asked = asyncio.run(run())
    assert [[_view(r) for r in raw.receipts] for raw in raws] == _node_receipts(
        devnet_chain.rpc_url, numbers
    )
    # The searches started (a first receipt each), failed on it, and their blocks' receipts
    # were fetched after all (that receipt a second time).
    assert any(n == 2 for n in asked.values())


def test_logs_bloom_is_the_headers(devnet_chain) -> None:
    numbers = list(range(devnet_chain.head + 1))
    node = Node(devnet_chain.rpc_url)
    headers = node.batch([("eth_getBlockByNumber", [hex(n), False]) for n in numbers])
    receipts = node.batch([("eth_getBlockReceipts", [hex(n)]) for n in numbers])
    blooms = [logs_bloom([lg for r in rs for lg in r["logs"]]) for rs in receipts]
    assert blooms == [int(h["logsBloom"], 16) for h in headers]
    assert any(blooms)


class _NoLogs(_GethGas):
    """A node that answers every eth_getLogs with nothing (its log index pruned or off)."""

    async def batch(self, calls: list[Call]) -> list[RpcResult]:  # type: ignore[override]
        results = await super().batch(calls)
        for (method, _), r in zip(calls, results, strict=True):
            if method == "eth_getLogs" and r.result:
                r.result = []
        return results


def test_logs_the_header_does_not_vouch_for_get_the_receipts_fetched(devnet_chain) -> None:
    numbers = list(range(devnet_chain.head - 20, devnet_chain.head + 1))
    raws, source = _fetch_geth(devnet_chain.rpc_url, numbers, _NoLogs)
    assert [[_view(r) for r in raw.receipts] for raw in raws] == _node_receipts(
        devnet_chain.rpc_url, numbers
    )
    assert any(r["logs"] for raw in raws for r in raw.receipts)  # there were logs to lose
    # Blocks without logs were still implied whole; those with logs were fetched.
    assert 0 < source.implied_receipts < sum(len(raw.receipts) for raw in raws)


def test_a_node_without_get_logs_gets_receipts_asked(devnet_chain) -> None:
    numbers = list(range(devnet_chain.head - 20, devnet_chain.head + 1))
    with FaultProxy(devnet_chain.rpc_url, rate=0.0, refuse=frozenset({"eth_getLogs"})) as proxy:
        raws, source = _fetch_geth(proxy.url, numbers)
    assert [[_view(r) for r in raw.receipts] for raw in raws] == _node_receipts(
        devnet_chain.rpc_url, numbers
    )
    assert source._logs_ok is False


class _ParityShapes(JsonRpcClient):
    """anvil's trace_block reshaped as other parity nodes may give it: with a block reward
    frame (no transaction position) at the end, or with the second transaction's frames
    before the first's."""

    def __init__(self, url: str, shape: str) -> None:
        super().__init__(url)
        self.shape = shape

    async def batch(self, calls: list[Call]) -> list[RpcResult]:  # type: ignore[override]
        results = await super().batch(calls)
        for (method, _), r in zip(calls, results, strict=True):
            if method != "trace_block" or not r.result:
                continue
            if self.shape == "reward":
                r.result.append(
                    {
                        "action": {
                            "author": "0x" + "11" * 20,
                            "rewardType": "block",
                            "value": "0x0",
                        },
                        "result": None,
                        "traceAddress": [],
                        "transactionPosition": None,
                        "type": "reward",
                    }
                )
            else:
                first = [t for t in r.result if t.get("transactionPosition") == 0]
                second = [t for t in r.result if t.get("transactionPosition") == 1]
                rest = [t for t in r.result if t.get("transactionPosition") not in (0, 1)]
                r.result[:] = second + first + rest
        return results


@pytest.mark.parametrize("shape", ["reward", "swapped"])
def test_parity_roots_are_read_as_nodes_order_them(devnet_chain, shape) -> None:
    """A reward frame is no transaction's root: whole blocks are still implied. Frames out of
    transaction order cannot be read in one pass: those blocks' receipts are fetched instead.
    Either way the receipts are the node's."""

    async def run() -> tuple[list[Any], EvmSource]:
        async with _ParityShapes(devnet_chain.rpc_url, shape) as client:
            source = EvmSource(client)
            source._order = (TraceStyle.PARITY, TraceStyle.GETH)
            return await source.fetch_range(0, devnet_chain.head + 1), source

    raws, source = asyncio.run(run())
    expected = _node_receipts(devnet_chain.rpc_url, list(range(devnet_chain.head + 1)))
    assert [[_view(r) for r in raw.receipts] for raw in raws] == expected
    several = [raw for raw in raws if len(raw.block["transactions"]) > 1]
    whole = [raw for raw in several if block_gas(raw.block, raw.trace_style, raw.traces)]
    if shape == "reward":
        assert whole and source.implied_receipts > 0
    else:
        assert several and not whole
