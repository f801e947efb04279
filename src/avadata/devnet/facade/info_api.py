"""The devnet node's `info` service (POST /ext/info), as avalanchego's api/info answers it.

Stage: devnet facade. `info.getNetworkID` (a json.Uint32: a decimal string), `getNetworkName`
(constants.NetworkName: mainnet, fuji, local, or network-<id>), `getBlockchainID` (an alias or
an ID -> the blockchain ID; unknown: the aliaser's error), `getNodeID` (with the BLS proof of
possession, hex), `getNodeVersion` and `isBootstrapped` (every chain the node runs is). The
node is the devnet's first validator (primary/keys.py). Aliases are avalanchego's (P and
platform, X and avm, C and evm) plus, as on the facade's URLs, an L1's devnet name.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from avadata import networks
from avadata.decode.codec.ids import cb58_encode, node_id_str
from avadata.devnet.facade.jsonrpc import BadParams, Handler, MethodError, Params, dispatch
from avadata.devnet.primary.keys import Node
from avadata.devnet.primary.network_ids import C_CHAIN_ID, NETWORK_ID, P_CHAIN_ID, X_CHAIN_ID
from avadata.devnet.primary.simulator import PrimarySim

# What this node reports as its build: an avalanchego release of the time (the devnet speaks
# its APIs as of that release, docs/devnet.md).
NODE_VERSION = {
    "version": "avalanchego/1.14.0",
    "databaseVersion": "v1.4.5",
    "rpcProtocolVersion": "43",
    "gitCommit": "0000000000000000000000000000000000000000",
    "vmVersions": {"avm": "v1.14.0", "evm": "v0.15.3", "platform": "v1.14.0"},
}
_PRIMARY_ALIASES = {
    "P": P_CHAIN_ID,
    "platform": P_CHAIN_ID,
    "X": X_CHAIN_ID,
    "avm": X_CHAIN_ID,
    "C": C_CHAIN_ID,
    "evm": C_CHAIN_ID,
}


def _chains(sim: PrimarySim) -> dict[str, bytes]:
    """Every alias and ID of a chain this node runs -> its blockchain ID."""
    out = dict(_PRIMARY_ALIASES)
    out.update(sim.chain_of)
    for chain in {*_PRIMARY_ALIASES.values(), *sim.chain_of.values()}:
        out[cb58_encode(chain)] = chain
    return out


def _text(params: Params, name: str) -> str:
    value = params.get(name, "")
    if not isinstance(value, str):
        raise BadParams(name)
    return value


def info_methods(view: Callable[[], PrimarySim], lock: threading.Lock) -> dict[str, Handler]:
    network = networks.by_id(NETWORK_ID)

    def lookup(alias: str) -> bytes:
        with lock:
            found = _chains(view()).get(alias)
        if found is None:
            raise MethodError(f"there is no ID with alias {alias}")
        return found

    def get_blockchain_id(params: Params) -> dict[str, Any]:
        return {"blockchainID": cb58_encode(lookup(_text(params, "alias")))}

    def is_bootstrapped(params: Params) -> dict[str, Any]:
        chain = _text(params, "chain")
        if not chain:
            raise MethodError("argument 'chain' not given")
        try:
            lookup(chain)
        except MethodError:
            raise MethodError(f"there is no chain with alias/ID '{chain}'") from None
        return {"isBootstrapped": True}

    def get_node_id(params: Params) -> dict[str, Any]:
        with lock:
            node = Node(view().config.seed, 0)
        return {
            "nodeID": node_id_str(node.node_id),
            "nodePOP": {
                "publicKey": "0x" + node.bls.public_key.hex(),
                "proofOfPossession": "0x" + node.bls.proof_of_possession.hex(),
            },
        }

    return {
        "getNetworkID": lambda p: {"networkID": str(network.network_id)},
        "getNetworkName": lambda p: {"networkName": network.name},
        "getBlockchainID": get_blockchain_id,
        "getNodeID": get_node_id,
        "getNodeVersion": lambda p: NODE_VERSION,
        "isBootstrapped": is_bootstrapped,
    }


def info_routes(view: Callable[[], PrimarySim], lock: threading.Lock) -> list[Route]:
    methods = info_methods(view, lock)

    async def info(request: Request) -> Response:
        return await dispatch(request, "info", methods)

    return [Route("/ext/info", info, methods=["GET", "POST", "PUT", "DELETE"])]
