"""Calls a node leaves unanswered for the size of a batch's answer are asked again until all
are answered, whatever the node's cap (the e2e twin runs a geth-like cap against anvil)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from avadata.sources.jsonrpc import Call, JsonRpcClient, RpcResult

TOO_LARGE = {"code": -32003, "message": "response too large"}


class _CappedNode(JsonRpcClient):
    """Answers the first `answered` calls of a batch and cuts off the rest; a call alone is
    always answered (it is no batch). `answered=0`: a node that cuts every call of a batch."""

    def __init__(self, answered: int) -> None:
        super().__init__("http://127.0.0.1:9")
        self.answered = answered
        self.sent: list[int] = []

    async def _one_batch(self, calls: Sequence[Call]) -> list[RpcResult]:
        self.sent.append(len(calls))
        out = []
        for i, (method, params) in enumerate(calls):
            if len(calls) == 1 or i < self.answered:
                out.append(RpcResult(method, result=params[0]))
            else:
                out.append(RpcResult(method, error=dict(TOO_LARGE)))
        return out


def _ask(node: _CappedNode, n: int) -> list[object]:
    calls: list[Call] = [("eth_getBlockByNumber", [k]) for k in range(n)]
    return [r.unwrap() for r in asyncio.run(node.batch(calls))]


def test_what_was_cut_off_is_asked_again() -> None:
    node = _CappedNode(answered=3)
    assert _ask(node, 10) == list(range(10))
    assert node.sent == [10, 7, 4, 1]


def test_a_node_that_cuts_every_call_of_a_batch_is_asked_in_halves() -> None:
    node = _CappedNode(answered=0)
    assert _ask(node, 5) == list(range(5))
    assert sorted(node.sent, reverse=True)[:3] == [5, 3, 2]


def test_other_errors_are_left_to_the_caller() -> None:
    class Refusing(_CappedNode):
        async def _one_batch(self, calls: Sequence[Call]) -> list[RpcResult]:
            self.sent.append(len(calls))
            return [
                RpcResult(m, error={"code": -32601, "message": "no such method"}) for m, _ in calls
            ]

    node = Refusing(answered=0)
    got = asyncio.run(node.batch([("x", [1]), ("x", [2])]))
    assert [r.error and r.error["code"] for r in got] == [-32601, -32601]
    assert node.sent == [2]
