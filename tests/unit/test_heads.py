"""Where the node's WebSocket is looked for, and what counts as a new head (sources/heads.py).
Truth: avalanchego's documented endpoints (/ext/bc/<chain>/ws beside /rpc) and the
eth_subscription notification shape of the Ethereum JSON-RPC spec."""

from __future__ import annotations

import asyncio

from avadata.sources.heads import HeadWatcher, _head_number, ws_urls


def test_ws_urls() -> None:
    assert ws_urls("http://127.0.0.1:9650/ext/bc/C/rpc") == [
        "ws://127.0.0.1:9650/ext/bc/C/ws",
        "ws://127.0.0.1:9650/ext/bc/C/rpc",
    ]
    assert ws_urls("https://node.example/ext/bc/2q9e/rpc/") == [
        "wss://node.example/ext/bc/2q9e/ws",
        "wss://node.example/ext/bc/2q9e/rpc/",
    ]
    assert ws_urls("http://127.0.0.1:8545") == ["ws://127.0.0.1:8545"]


def test_head_number() -> None:
    note = {
        "jsonrpc": "2.0",
        "method": "eth_subscription",
        "params": {"subscription": "0x9ce5", "result": {"number": "0x1b4", "hash": "0x01"}},
    }
    assert _head_number(note) == 436
    assert _head_number({"jsonrpc": "2.0", "id": 1, "result": "0x9ce5"}) is None
    assert _head_number({"method": "eth_subscription", "params": {"result": "0xabc"}}) is None
    assert _head_number([1]) is None


def test_wait_gives_the_pushed_head_once() -> None:
    """A head pushed before or during the wait is returned (the follower fetches up to it
    without asking the node again), once; a wait with no push gives None."""

    async def scenario() -> list[int | None]:
        watcher = HeadWatcher("http://127.0.0.1:1")
        watcher.live = True
        watcher.head = 436
        watcher.moved.set()  # pushed while the follower was writing
        first = await watcher.wait(5.0, None)
        second = await watcher.wait(0.01, None)
        return [first, second]

    assert asyncio.run(scenario()) == [436, None]
