"""The subnet-EVM extras of an L1's /ext/bc/<chain>/rpc, answered by the facade.

Stage: devnet facade. anvil runs the L1's EVM but knows nothing of subnet-EVM's fee config,
upgrades or precompiles; the devnet records them (primary/l1_config.py), and these handlers answer
eth_feeConfig, eth_getChainConfig, eth_getActivePrecompilesAt and eth_getActiveRulesAt from
that record (reference node-rpc.md section 4). A block parameter or a default "now" is turned
into a number or a time by asking the chain's anvil. Errors are the geth-style ones of that
endpoint (-32602 invalid params, -32000 for a block the chain does not have).
"""

from __future__ import annotations

from typing import Any

import httpx

from avadata.devnet.facade.routes import LocalHandler, RpcFault
from avadata.devnet.primary.l1_config import EvmChainConfig

INVALID_PARAMS = -32602
SERVER_ERROR = -32000
TAGS = ("latest", "pending", "safe", "finalized", "accepted")


async def _upstream(url: str, method: str, params: list[Any]) -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    async with httpx.AsyncClient(timeout=30) as client:
        answer = (await client.post(url, json=body)).json()
    if "error" in answer:
        raise RpcFault(SERVER_ERROR, str(answer["error"].get("message")))
    return answer["result"]


def positional_args(params: Any, most: int) -> list[Any]:
    if params is None:
        return []
    if not isinstance(params, list):
        raise RpcFault(INVALID_PARAMS, "non-array args")
    if len(params) > most:
        raise RpcFault(INVALID_PARAMS, f"too many arguments, want at most {most}")
    return params


def _quantity(value: str) -> int:
    if not value.startswith("0x") or len(value) < 3:
        raise RpcFault(INVALID_PARAMS, "invalid argument 0: hex string without 0x prefix")
    try:
        return int(value, 16)
    except ValueError:
        raise RpcFault(INVALID_PARAMS, "invalid argument 0: invalid hex string") from None


async def _block_number(url: str, arg: Any) -> int:
    """A block number or tag, or {"blockHash"} / {"blockNumber"}: the block's number."""
    if arg is None or arg in TAGS:
        return int(await _upstream(url, "eth_blockNumber", []), 16)
    if arg == "earliest":
        return 0
    if isinstance(arg, str):
        number = _quantity(arg)
    elif isinstance(arg, dict) and isinstance(arg.get("blockHash"), str):
        block = await _upstream(url, "eth_getBlockByHash", [arg["blockHash"], False])
        if block is None:
            raise RpcFault(SERVER_ERROR, "header for hash not found")
        return int(block["number"], 16)
    elif isinstance(arg, dict) and isinstance(arg.get("blockNumber"), str):
        return await _block_number(url, arg["blockNumber"])
    else:
        raise RpcFault(INVALID_PARAMS, "invalid argument 0: not a block number or hash")
    head = int(await _upstream(url, "eth_blockNumber", []), 16)
    if number > head:
        raise RpcFault(SERVER_ERROR, "header not found")
    return number


async def _timestamp(url: str, args: list[Any]) -> int:
    """The optional uint64 timestamp argument (a JSON number); default the head block's."""
    if not args or args[0] is None:
        head = await _upstream(url, "eth_getBlockByNumber", ["latest", False])
        return int(head["timestamp"], 16)
    value = args[0]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << 64:
        raise RpcFault(
            INVALID_PARAMS,
            "invalid argument 0: json: cannot unmarshal into Go value of type uint64",
        )
    return value


def subnet_evm_methods(config: EvmChainConfig, upstream: str) -> dict[str, LocalHandler]:
    """The four extras of the L1 whose record is `config`, its anvil at `upstream`."""

    async def fee_config(params: Any) -> dict[str, Any]:
        args = positional_args(params, 1)
        number = await _block_number(upstream, args[0] if args else None)
        current, changed = config.fee_config_at(number)
        return {"feeConfig": current.json(), "lastChangedAt": changed}

    async def chain_config(params: Any) -> dict[str, Any]:
        positional_args(params, 0)
        return config.chain_config()

    async def active_precompiles(params: Any) -> dict[str, Any]:
        return config.active_precompiles(await _timestamp(upstream, positional_args(params, 1)))

    async def active_rules(params: Any) -> dict[str, Any]:
        return config.rules_at(await _timestamp(upstream, positional_args(params, 1)))

    return {
        "eth_feeConfig": fee_config,
        "eth_getChainConfig": chain_config,
        "eth_getActivePrecompilesAt": active_precompiles,
        "eth_getActiveRulesAt": active_rules,
    }
