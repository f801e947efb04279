"""The JSON-RPC client goes through the proxy HTTP_PROXY names, unless NO_PROXY exempts the node.

The proxy is a loopback forwarder (FaultProxy without faults) in front of the devnet; what it
forwarded is the check, the node's answer the value's truth.
"""

from __future__ import annotations

import asyncio

import pytest

from avadata.sources.jsonrpc import JsonRpcClient
from tests.support.fault_proxy import FaultProxy
from tests.support.node import Node

pytestmark = pytest.mark.e2e


def _head(url: str) -> int:
    async def run() -> int:
        async with JsonRpcClient(url) as client:
            return int(await client.call("eth_blockNumber"), 16)

    return asyncio.run(run())


@pytest.mark.parametrize("exempt", [False, True])
def test_the_environments_proxy_is_used(devnet_chain, monkeypatch, exempt) -> None:
    truth = int(Node(devnet_chain.rpc_url).call("eth_blockNumber", []), 16)
    with FaultProxy(devnet_chain.rpc_url, rate=0.0) as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.setenv("NO_PROXY", "127.0.0.1" if exempt else "")
        assert _head(devnet_chain.rpc_url) == truth
    through = proxy.forwarded[("eth_blockNumber", "null")]
    assert through == (0 if exempt else 1)


def test_calls_a_node_cut_off_for_the_batch_answers_size_are_asked_again(devnet_chain) -> None:
    """A node caps a batch's answer (geth's batch-response-max-size): what it cut off is asked
    again, and the blocks come back whole and in order, as the node gives them one by one."""
    head = min(int(Node(devnet_chain.rpc_url).call("eth_blockNumber", []), 16), 40)
    node = Node(devnet_chain.rpc_url)
    truth = [node.call("eth_getBlockByNumber", [hex(n), True]) for n in range(head + 1)]

    async def fetch(url: str) -> list[object]:
        async with JsonRpcClient(url) as client:
            calls = [("eth_getBlockByNumber", [hex(n), True]) for n in range(head + 1)]
            return [r.unwrap() for r in await client.batch(calls)]

    with FaultProxy(devnet_chain.rpc_url, rate=0.0, batch_answer_cap=20_000) as proxy:
        got = asyncio.run(fetch(proxy.url))
    assert proxy.cut_off > 0  # the cap did cut
    assert got == truth
