"""Subnets and blockchains: GET /v1/networks/{network}/subnets, /subnets/{subnetId},
/blockchains and /blockchains/{blockchainId}.

Stage: api. Folded from the P-chain txs that define them, oldest first: a CreateSubnetTx makes
a subnet (its ID is the tx's) with its owner, a TransferSubnetOwnershipTx replaces the owner,
a ConvertSubnetToL1Tx makes it an L1 (its conversion tx and validator manager), a
CreateChainTx adds a blockchain (its ID is the tx's). The primary network and its P, X and C
chains are defined by the genesis, which no index holds: they are not listed.
"""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Path, Query

from avadata.api.deps import AppState, State, on_store, read_conn
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, not_found
from avadata.api.paging import PageToken, cut, page, with_token
from avadata.api.patterns import CB58_ID
from avadata.api.primary import params
from avadata.api.primary.openapi import ok
from avadata.api.primary.routes import Network, SortOrder
from avadata.store.primary.queries import network as queries
from avadata.store.types import Connection

router = APIRouter(tags=["Primary Network"])
BigPageSize = Annotated[int, Query(ge=1, le=10_000)]


def _blockchain(tx: Any, body: dict[str, Any]) -> dict[str, Any]:
    info = body.get("blockchainInfo") or {}
    genesis = info.get("genesisData", body.get("genesisData"))
    out: dict[str, Any] = {
        "createBlockTimestamp": int(tx.block_timestamp),
        "createBlockNumber": str(tx.block_number),
        "blockchainId": tx.tx_hash,
        "vmId": body["vmId"],
        "subnetId": body["subnetId"],
        "blockchainName": body["chainName"],
    }
    if genesis is not None:
        out["genesisData"] = genesis
    if isinstance(genesis, dict) and isinstance(genesis.get("config"), dict):
        chain_id = genesis["config"].get("chainId")
        if isinstance(chain_id, int):
            out["evmChainId"] = chain_id
    return out


def _owned(subnet: dict[str, Any], owner: dict[str, Any]) -> None:
    subnet["subnetOwnershipInfo"] = owner
    # The deprecated copies the reference still requires.
    subnet["ownerAddresses"] = owner["addresses"]
    subnet["threshold"] = owner["threshold"]
    subnet["locktime"] = owner["locktime"]


def fold(conn: Connection) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """(subnets, blockchains) by ID, each in the reference's shape."""
    subnets: dict[str, dict[str, Any]] = {}
    chains: dict[str, dict[str, Any]] = {}
    for tx in queries.defining_txs(conn):
        body = orjson.loads(tx.body)
        if tx.tx_type == "CreateSubnetTx":
            subnet: dict[str, Any] = {
                "createBlockTimestamp": int(tx.block_timestamp),
                "createBlockIndex": str(tx.block_number),
                "subnetId": tx.tx_hash,
                "isL1": False,
                "blockchains": [],
            }
            _owned(subnet, body["subnetOwnershipInfo"])
            subnets[tx.tx_hash] = subnet
        elif tx.tx_type == "CreateChainTx":
            chain = _blockchain(tx, body)
            chains[tx.tx_hash] = chain
            if chain["subnetId"] in subnets:
                subnets[chain["subnetId"]]["blockchains"].append(chain)
        elif body.get("subnetId") in subnets:
            subnet = subnets[body["subnetId"]]
            if tx.tx_type == "TransferSubnetOwnershipTx":
                _owned(subnet, body["subnetOwnershipInfo"])
            else:  # ConvertSubnetToL1Tx
                subnet["isL1"] = True
                subnet["l1ConversionTransactionHash"] = tx.tx_hash
                subnet["l1ValidatorManagerDetails"] = body["l1ValidatorManagerDetails"]
    return subnets, chains


def _listing(
    st: State, route: str, key: str, items: list[dict[str, Any]], q: dict[str, Any]
) -> JsonResponse:
    desc = q["sortOrder"] == "desc"
    pg = page(st, route, {"d": desc}, q["pageToken"], q["pageSize"], arity=2)

    def position(x: dict[str, Any]) -> tuple[int, str]:
        return int(x["createBlockTimestamp"]), str(x[key])

    ordered = sorted(items, key=position, reverse=desc)
    if pg.after is not None:
        after = (int(pg.after[0]), str(pg.after[1]))
        ordered = [x for x in ordered if (position(x) < after if desc else position(x) > after)]
    served, token = cut(ordered[: pg.size + 1], pg, position)
    return JsonResponse(with_token({route: list(served)}, token))


def _folded(st: AppState, network: str, which: int) -> dict[str, Any]:
    """The indexed network's subnets (`which` 0) or blockchains (1), by ID, as `fold` reads
    them from the P-chain's transactions; a 400/404 naming `network` first."""
    params.network(network, params.indexed_network(st))
    with read_conn(st) as conn:
        return fold(conn)[which]


def _one(found: dict[str, Any], wanted: str, param: str, what: str) -> JsonResponse:
    if wanted not in found:
        raise not_found(f"{param}: no {what} {wanted} is indexed")
    return JsonResponse(found[wanted])


@router.get(
    "/v1/networks/{network}/subnets",
    operation_id="listSubnets",
    responses={**ok("ListSubnetsResponse"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def list_subnets(
    st: State,
    network: Network,
    pageToken: PageToken = None,
    pageSize: BigPageSize = 100,
    sortOrder: SortOrder = None,
) -> JsonResponse:
    q = {"pageToken": pageToken, "pageSize": pageSize, "sortOrder": sortOrder or "asc"}
    return _listing(st, "subnets", "subnetId", list(_folded(st, network, 0).values()), q)


@router.get(
    "/v1/networks/{network}/subnets/{subnetId}",
    operation_id="getSubnetById",
    responses={**ok("Subnet"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def get_subnet(
    st: State,
    network: Network,
    subnet_id: Annotated[
        str, Path(alias="subnetId", pattern=CB58_ID, description="CB58 subnet ID")
    ],
) -> JsonResponse:
    subnets = _folded(st, network, 0)
    return _one(subnets, params.subnet_id(subnet_id), "subnetId", "subnet")


@router.get(
    "/v1/networks/{network}/blockchains",
    operation_id="listBlockchains",
    responses={**ok("ListBlockchainsResponse"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def list_blockchains(
    st: State,
    network: Network,
    pageToken: PageToken = None,
    pageSize: BigPageSize = 100,
    sortOrder: SortOrder = None,
) -> JsonResponse:
    q = {"pageToken": pageToken, "pageSize": pageSize, "sortOrder": sortOrder or "asc"}
    return _listing(st, "blockchains", "blockchainId", list(_folded(st, network, 1).values()), q)


@router.get(
    "/v1/networks/{network}/blockchains/{blockchainId}",
    operation_id="getBlockchainById",
    responses={**ok("Blockchain"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def get_blockchain(
    st: State,
    network: Network,
    blockchain_id: Annotated[
        str, Path(alias="blockchainId", pattern=CB58_ID, description="CB58 blockchain ID")
    ],
) -> JsonResponse:
    chains = _folded(st, network, 1)
    return _one(chains, params.created_chain_id(blockchain_id), "blockchainId", "blockchain")
