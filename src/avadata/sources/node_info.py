"""What an avalanchego node says about itself and its chains: info.getNetworkID,
platform.getBlockchains and platform.getSubnets, and an EVM chain's eth_chainId.

Stage: sources. Answers are returned as the node's JSON (decode/node_info.py reads them).
avalanchego's own services refuse JSON-RPC batches: one request per call.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any

from avadata.errors import RpcError, RpcRefused, RpcTransportError
from avadata.sources.jsonrpc import JsonRpcClient, RetryPolicy


def _base(node: str) -> str:
    return node.rstrip("/")


async def _ask(
    url: str, method: str, params: Any, retry: RetryPolicy | None, timeout: float = 30.0
) -> Any:
    async with JsonRpcClient(url, max_batch=1, retry=retry, timeout=timeout) as client:
        return await client.call(method, params)


async def network_id(node: str, retry: RetryPolicy | None = None) -> Any:
    """info.getNetworkID's answer: {"networkID": "5"}."""
    return await _ask(f"{_base(node)}/ext/info", "info.getNetworkID", {}, retry)


async def blockchains(node: str, retry: RetryPolicy | None = None) -> Any:
    """platform.getBlockchains' answer: every chain but the P-chain, with name, subnet, VM."""
    return await _ask(f"{_base(node)}/ext/bc/P", "platform.getBlockchains", {}, retry)


def chain_rpc_url(node: str, blockchain_id: str) -> str:
    return f"{_base(node)}/ext/bc/{blockchain_id}/rpc"


async def evm_chain_id(rpc_url: str, retry: RetryPolicy | None = None) -> Any:
    """eth_chainId's answer (a hex quantity), over the standard library's HTTP: `avadata
    index` asks it before its backfill, whose parent otherwise never loads aiohttp (its fetch
    processes do the pulling; tests/e2e/test_prefetch.py)."""
    policy = retry or RetryPolicy()
    last: Exception | None = None
    for attempt in range(policy.max_attempts):
        try:
            return await asyncio.to_thread(_post_once, rpc_url, "eth_chainId")
        except RpcRefused:
            raise
        except (OSError, ValueError) as exc:  # connection, timeout, 5xx, a torn answer
            last = exc
            if attempt + 1 < policy.max_attempts:
                await asyncio.sleep(policy.delay(attempt))
    raise RpcTransportError(f"{rpc_url}: gave up after {policy.max_attempts} attempts: {last}")


def _post_once(url: str, method: str, timeout: float = 30.0) -> Any:
    """One JSON-RPC call without parameters; a 4xx other than 408/425/429 is refused for good."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": []}).encode()
    request = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            decoded = json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        if 400 <= exc.code < 500 and exc.code not in (408, 425, 429):
            raise RpcRefused(f"HTTP {exc.code} from {url}") from None
        raise
    if decoded.get("error"):
        error = decoded["error"]
        raise RpcError(method, int(error.get("code", 0)), str(error.get("message", "")))
    return decoded["result"]


async def block_number(
    rpc_url: str, retry: RetryPolicy | None = None, timeout: float = 30.0
) -> Any:
    """eth_blockNumber's answer (a hex quantity)."""
    return await _ask(rpc_url, "eth_blockNumber", [], retry, timeout)
