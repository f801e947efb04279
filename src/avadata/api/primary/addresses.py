"""Address lookups of the primary network: the POST forms that take the addresses in a body
(getUtxosByAddressesV2, getLastActivityTimestampByAddressesV2), the last activity
(getLastActivityTimestampByAddresses) and the chains an address touched
(getChainIdsForAddresses).

Stage: api. The last activity is the addresses' newest tx on the chain (a link of
primary_address_txs: it created or consumed one of their UTXOs, exports and imports too);
`utxoId` names the UTXO of theirs it consumed (`isConsumed`), else one it created for them.
"""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Body, Query
from pydantic import BaseModel, Field

from avadata.api.deps import State, on_store, read_conn
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, bad_request, not_found
from avadata.api.patterns import bech32_addresses, primary_addresses
from avadata.api.primary import params
from avadata.api.primary.openapi import ok
from avadata.api.primary.routes import (
    ADDRESSES,
    CHAIN_NAMES,
    BlockchainId,
    Network,
    RequiredAddresses,
    UtxoQuery,
    utxo_list,
)
from avadata.store.primary.queries import addresses as queries

router = APIRouter(tags=["Primary Network"])


class AddressesBody(BaseModel):
    """The reference's PrimaryNetworkAddressesBodyDto, with the GET lists' rule."""

    addresses: str = Field(pattern=primary_addresses(params.MAX_ADDRESSES), description=ADDRESSES)


Posted = Annotated[AddressesBody, Body()]
V2PageSize = Annotated[int, Query(alias="pageSize", ge=1, le=1024, description="1 to 1024")]


@router.post(
    "/v1/networks/{network}/blockchains/{blockchainId}/utxos",
    operation_id="getUtxosByAddressesV2",
    responses={**ok("ListPChainUtxosResponse", "ListUtxosResponse"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def list_utxos_v2(
    st: State,
    q: UtxoQuery,
    network: Network,
    blockchain_id: BlockchainId,
    body: Posted,
    pageSize: V2PageSize = 10,
) -> JsonResponse:
    return utxo_list(
        st,
        "primary_utxos_v2",
        network,
        blockchain_id,
        body.addresses,
        q._replace(page_size=pageSize),
    )


def _last_activity(st: State, network: str, blockchain_id: str, given: str | None) -> JsonResponse:
    net, key, addrs = params.addressed(st, network, blockchain_id, given)
    with read_conn(st) as conn:
        links = queries.newest_links(conn, key, addrs)
        if not links:
            raise not_found(f"addresses: no activity of these addresses on the {CHAIN_NAMES[key]}")
        last = max(links, key=lambda r: (int(r.block_timestamp), int(r.block_number), r.tx_index))
        moved = queries.utxos_moved_by(conn, key, str(last.tx_hash))
    utxo_id, consumed = _their_utxo(moved, set(addrs), key, str(last.tx_hash))
    return JsonResponse(
        {
            "timestamp": int(last.block_timestamp),
            "blockNumber": str(last.block_number),
            "txHash": str(last.tx_hash),
            "utxoId": utxo_id,
            "isConsumed": consumed,
            "chainName": CHAIN_NAMES[key],
            "network": "mainnet" if net == "mainnet" else "fuji",
        }
    )


def _their_utxo(moved: Any, addrs: set[str], key: str, tx_hash: str) -> tuple[str, bool]:
    """The UTXO of `addrs` the tx consumed, else one it created for them (else any it
    moved: a C-chain tx linked through its 0x address), by UTXO ID."""
    ordered = sorted(moved, key=lambda r: str(r.utxo_id))
    theirs = [r for r in ordered if addrs.intersection(orjson.loads(r.addresses))]
    for r in theirs:
        if r.consuming_tx_hash == tx_hash and r.consumed_on == key:
            return str(r.utxo_id), True
    for r in theirs or ordered:
        if r.tx_hash == tx_hash and r.created_on == key:
            return str(r.utxo_id), False
    return (str(ordered[0].utxo_id), True) if ordered else ("", False)


@router.get(
    "/v1/networks/{network}/blockchains/{blockchainId}/lastActivityTimestampByAddresses",
    operation_id="getLastActivityTimestampByAddresses",
    responses={**ok("LastActivityTimestamp"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def last_activity(
    st: State, network: Network, blockchain_id: BlockchainId, addresses: RequiredAddresses
) -> JsonResponse:
    return _last_activity(st, network, blockchain_id, addresses)


@router.post(
    "/v1/networks/{network}/blockchains/{blockchainId}/lastActivityTimestampByAddresses",
    operation_id="getLastActivityTimestampByAddressesV2",
    responses={**ok("LastActivityTimestamp"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def last_activity_v2(
    st: State, network: Network, blockchain_id: BlockchainId, body: Posted
) -> JsonResponse:
    return _last_activity(st, network, blockchain_id, body.addresses)


@router.get(
    "/v1/networks/{network}/addresses:listChainIds",
    operation_id="getChainIdsForAddresses",
    responses={**ok("ChainAddressChainIdMapListResponse"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def chain_ids(
    st: State,
    network: Network,
    addresses: Annotated[
        str,
        Query(
            pattern=bech32_addresses(params.MAX_ADDRESSES),
            description=f"comma-separated bech32 addresses (at most {params.MAX_ADDRESSES})",
        ),
    ],
) -> JsonResponse:
    """Each address as given, with the primary chains it has a tx on (P, X, C atomic)."""
    net = params.network(network, params.indexed_network(st))
    given = list(dict.fromkeys(a.strip() for a in addresses.split(",") if a.strip()))
    if not given:
        raise bad_request("addresses: required")
    if len(given) > params.MAX_ADDRESSES:
        raise bad_request(f"addresses: at most {params.MAX_ADDRESSES} addresses")
    out = []
    with read_conn(st) as conn:
        for text in given:
            (bare,) = params.addresses(net, "P", text)
            touched = queries.chains_touched(conn, bare, ("P", "X", "C"))
            out.append(
                {"address": text, "blockchainIds": [params.chain_id_of(net, k) for k in touched]}
            )
    return JsonResponse({"addresses": out})
