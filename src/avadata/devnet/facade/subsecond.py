"""Millisecond headers for a sub-second devnet chain: the `timeMilliseconds` field Granite's
headers carry (ACP-226), added by the facade to anvil's blocks.

Stage: devnet facade. anvil stamps blocks in whole seconds, and an automining anvil fed
transactions quickly mines several blocks in one second, as a sub-second chain does. Here
each of them gets a millisecond time inside its second: the k-th block of a second (k from 0)
is `timestamp * 1000 + min(k, 6) * STEP_MS`, so times never go back and `timeMilliseconds //
1000 == timestamp`, as on avalanchego. k depends only on earlier blocks (walked back through
the node and kept), so the answer never changes once given.
"""

from __future__ import annotations

from typing import Any

import httpx

from avadata.devnet.facade.routes import LocalHandler, RpcFault

STEP_MS = 150
_MAX_RANK = 6  # 6 * 150 ms stays inside the second


def millisecond_methods(upstream: str) -> dict[str, LocalHandler]:
    """eth_getBlockByNumber and eth_getBlockByHash of the anvil at `upstream`, each block with
    its `timeMilliseconds`."""
    ranks: dict[int, tuple[int, int]] = {}  # block number -> (timestamp, rank in its second)

    async def call(method: str, params: Any) -> Any:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        async with httpx.AsyncClient(timeout=60) as client:
            answer = (await client.post(upstream, json=body)).json()
        if "error" in answer:
            e = answer["error"]
            raise RpcFault(e.get("code", -32000), e.get("message", ""), e.get("data"))
        return answer.get("result")

    async def rank(number: int, timestamp: int) -> int:
        known = ranks.get(number)
        if known is not None:
            return known[1]
        if number == 0:
            found = 0
        else:
            before = ranks.get(number - 1)
            if before is None:
                parent = await call("eth_getBlockByNumber", [hex(number - 1), False])
                before_ts = int(parent["timestamp"], 16)
                before = (before_ts, await rank(number - 1, before_ts))
            found = before[1] + 1 if before[0] == timestamp else 0
        ranks[number] = (timestamp, found)
        return found

    async def with_ms(block: Any) -> Any:
        if isinstance(block, dict) and "timestamp" in block and "number" in block:
            ts = int(block["timestamp"], 16)
            k = await rank(int(block["number"], 16), ts)
            block["timeMilliseconds"] = hex(ts * 1000 + min(k, _MAX_RANK) * STEP_MS)
        return block

    async def by_number(params: Any) -> Any:
        return await with_ms(await call("eth_getBlockByNumber", params))

    async def by_hash(params: Any) -> Any:
        return await with_ms(await call("eth_getBlockByHash", params))

    return {"eth_getBlockByNumber": by_number, "eth_getBlockByHash": by_hash}
