"""What an avalanchego node says about itself and its chains: info.getNetworkID,
platform.getBlockchains and platform.getSubnets, and an EVM chain's eth_chainId.

Stage: sources. Answers are returned as the node's JSON (decode/node_info.py reads them).
avalanchego's own services refuse JSON-RPC batches: one request per call.
"""

from __future__ import annotations

from typing import Any

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
    """eth_chainId's answer (a hex quantity)."""
    return await _ask(rpc_url, "eth_chainId", [], retry)


async def block_number(
    rpc_url: str, retry: RetryPolicy | None = None, timeout: float = 30.0
) -> Any:
    """eth_blockNumber's answer (a hex quantity)."""
    return await _ask(rpc_url, "eth_blockNumber", [], retry, timeout)
