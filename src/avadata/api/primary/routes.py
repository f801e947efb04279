"""GET /v1/networks/{network}/blockchains/{blockchainId}/transactions, /transactions:listStaking
and /utxos (primary network).

Stage: api. Txs come newest first by block time unless sortOrder=asc; the tx body is the
codec's JSON (Data API names) with the block fields and the UTXOs the tx consumed and emitted.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from decimal import Decimal
from typing import Annotated, Any, NamedTuple

import orjson
from fastapi import APIRouter, Depends, Path, Query

from avadata.api.deps import State, on_store, read_conn
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, bad_request, not_found
from avadata.api.paging import Page, PageSize, PageToken, cut, page, with_token
from avadata.api.patterns import CB58_ID, one_of, primary_addresses
from avadata.api.primary import params, shapes
from avadata.api.primary.openapi import ok
from avadata.api.primary.shapes import Assets, utxo_json
from avadata.store.primary.queries import txs as queries
from avadata.store.primary.queries import validators as validator_queries
from avadata.store.types import Connection

router = APIRouter(tags=["Primary Network"])

Network = Annotated[
    str,
    Path(
        pattern=params.NETWORK_PATTERN,
        description="mainnet, fuji or testnet (also local, network-<id>): the one indexed",
    ),
]


def _chains(keys: str) -> dict[str, Any]:
    return one_of(params.blockchain_ids(keys))


_ALIAS = "alias or blockchain ID"
BlockchainId = Annotated[
    str, Path(alias="blockchainId", description=_ALIAS, json_schema_extra=_chains("PXC"))
]
# The routes of one or two chains only.
PChainId = Annotated[
    str, Path(alias="blockchainId", description=_ALIAS, json_schema_extra=_chains("P"))
]
XChainId = Annotated[
    str, Path(alias="blockchainId", description=_ALIAS, json_schema_extra=_chains("X"))
]
BlocksChainId = Annotated[
    str, Path(alias="blockchainId", description=_ALIAS, json_schema_extra=_chains("PX"))
]
ADDRESSES = (
    f"comma-separated bech32 addresses of the network's HRP (at most {params.MAX_ADDRESSES}; "
    "0x addresses on the C-chain); each address's checksum is checked"
)
Addresses = Annotated[
    str | None,
    Query(pattern=primary_addresses(params.MAX_ADDRESSES), description=ADDRESSES),
]
RequiredAddresses = Annotated[
    str, Query(pattern=primary_addresses(params.MAX_ADDRESSES), description=ADDRESSES)
]
TxTypes = Annotated[
    list[str] | None,
    Query(
        description="PrimaryNetworkTxType names; with addresses or l1ValidationId only",
        json_schema_extra={
            "anyOf": [
                {"type": "array", "items": {"type": "string", "enum": sorted(params.TX_TYPES)}},
                {"type": "null"},
            ]
        },
    ),
]
SortOrder = Annotated[str | None, Query(alias="sortOrder", pattern="^(asc|desc)$")]
Timestamp = Annotated[int | None, Query(ge=0, le=2**63 - 1)]
STAKING_TYPES = (
    "AddValidatorTx",
    "AddDelegatorTx",
    "AddPermissionlessValidatorTx",
    "AddPermissionlessDelegatorTx",
    "AddSubnetValidatorTx",
)
CHAIN_NAMES = {"P": "p-chain", "X": "x-chain", "C": "c-chain"}


# The seed's rule 4: a page may hold fewer txs once their UTXOs reach this many (responses stay
# bounded for txs with thousands of outputs); the token then continues after the last tx served.
UTXO_THRESHOLD = 2_000


def _utxo_threshold(
    served: Sequence[Any], token: str | None, utxos: Sequence[Any], pg: Page
) -> tuple[Sequence[Any], str | None]:
    per_tx: dict[str, int] = defaultdict(int)
    for u in utxos:
        per_tx[u.tx_hash] += 1
        if u.consuming_tx_hash is not None:
            per_tx[u.consuming_tx_hash] += 1
    total = 0
    for k, r in enumerate(served):
        total += per_tx.get(r.tx_hash, 0)
        if total >= UTXO_THRESHOLD and k + 1 < len(served):
            kept = served[: k + 1]
            last = kept[-1]
            return kept, pg.token(
                (int(last.block_timestamp), int(last.block_number), int(last.tx_index))
            )
    return served, token


class TxFilters(NamedTuple):
    """The query both transaction lists share."""

    tx_types: list[str] | None
    start: int | None
    end: int | None
    page_token: str | None
    page_size: int
    sort_order: str | None


async def _tx_filters(
    txTypes: TxTypes = None,
    startTimestamp: Timestamp = None,
    endTimestamp: Timestamp = None,
    pageToken: PageToken = None,
    pageSize: PageSize = 10,
    sortOrder: SortOrder = None,
) -> TxFilters:
    # async: FastAPI runs a sync dependency in a worker thread.
    return TxFilters(txTypes, startTimestamp, endTimestamp, pageToken, pageSize, sortOrder)


TxQuery = Annotated[TxFilters, Depends(_tx_filters)]


class TxAsk(NamedTuple):
    """A transaction list's request, checked."""

    net: str
    key: str
    addresses: list[str]
    types: list[str]
    l1: str | None
    staking: bool = False


def _tx_ask(
    net: str,
    blockchain_id: str,
    addresses: str | None,
    q: TxFilters,
    staking: bool,
    l1_validation_id: str | None,
) -> TxAsk:
    key = params.chain(net, blockchain_id)
    if staking and key != "P":
        raise bad_request("blockchainId: transactions:listStaking serves the P-chain only")
    addrs = params.addresses(net, key, addresses)
    l1 = params.l1_validation_id(key, l1_validation_id)
    if l1 is not None and addrs:
        raise bad_request("l1ValidationId: lists one validation's txs, not with addresses")
    if not addrs and l1 is None and (q.tx_types or q.start is not None or q.end is not None):
        raise bad_request("txTypes, startTimestamp and endTimestamp need addresses")
    if staking and not addrs:
        raise bad_request("addresses: required by transactions:listStaking")
    if q.start is not None and q.end is not None and q.start > q.end:
        raise bad_request("startTimestamp: must not exceed endTimestamp")
    types = params.tx_types(q.tx_types) or (list(STAKING_TYPES) if staking else [])
    return TxAsk(net, key, addrs, types, l1, staking)


def _position(r: Any) -> tuple[int, int, int]:
    return (int(r.block_timestamp), int(r.block_number), int(r.tx_index))


class TxPage(NamedTuple):
    """One page of txs and what their JSON needs from the store."""

    served: Sequence[Any]
    token: str | None
    utxos: Sequence[Any]
    periods: dict[str, Any]
    bodies: dict[str, dict[str, Any]]
    assets: Assets
    l1_facts: shapes.L1Facts
    refunds: dict[str, tuple[str, str]]


def _tx_page(conn: Connection, ask: TxAsk, q: TxFilters, pg: Page) -> TxPage:
    key, desc = ask.key, q.sort_order != "asc"
    # listStaking: the stakes still locked at the P-chain's current time (an empty store has
    # none).
    staked_at = (validator_queries.p_chain_now(conn) or 0) if ask.staking else None
    rows = queries.list_txs(
        conn,
        queries.Window(key, ask.addresses, pg.after, pg.size + 1, desc),
        tx_types=ask.types,
        start=q.start,
        end=q.end,
        l1_validation=ask.l1,
        staked_at=staked_at,
    )
    served, token = cut(rows, pg, _position)
    return tx_facts(conn, ask, served, token, pg)


def tx_facts(
    conn: Connection, ask: TxAsk, served: Sequence[Any], token: str | None, pg: Page | None
) -> TxPage:
    """What the JSON of these txs needs from the store (a page's `pg` applies the UTXO
    threshold; a single tx has none)."""
    key = ask.key
    utxos = queries.utxos_of_txs(conn, [r.tx_hash for r in served])
    periods = validator_queries.staking_facts(
        conn, [r.tx_hash for r in served if r.tx_type in STAKING_TYPES]
    )
    if pg is not None:
        served, token = _utxo_threshold(served, token, utxos, pg)
    bodies = {r.tx_hash: orjson.loads(r.body) for r in served}
    asset_ids = [u.asset_id for u in utxos]
    asset_ids += [a for b in bodies.values() for a in shapes.evm_assets(b)]
    assets = Assets(ask.net, key).load(conn, asset_ids)
    l1_facts = shapes.L1Facts().load(conn, bodies.values()) if key == "P" else shapes.L1Facts()
    refunds = queries.l1_refunds(conn, list(bodies)) if key == "P" else {}
    assets.stake_periods = validator_queries.stake_periods(
        conn, [u.tx_hash for u in utxos if u.staked]
    )
    return TxPage(served, token, utxos, periods, bodies, assets, l1_facts, refunds)


def _tx_list(
    st: State,
    route: str,
    network: str,
    blockchain_id: str,
    addresses: str | None,
    q: TxFilters,
    staking: bool = False,
    l1_validation_id: str | None = None,
) -> JsonResponse:
    net = params.network(network, params.indexed_network(st))
    ask = _tx_ask(net, blockchain_id, addresses, q, staking, l1_validation_id)
    filters = {
        "chain": ask.key,
        "addresses": ask.addresses,
        "types": ask.types,
        "s": q.start,
        "e": q.end,
        "d": q.sort_order != "asc",
        "l1": ask.l1,
    }
    pg = page(st, route, filters, q.page_token, q.page_size, arity=3)
    with read_conn(st) as conn:
        found = _tx_page(conn, ask, q, pg)
    txs = txs_json(st, ask, found)
    return JsonResponse(
        with_token({"transactions": txs, "chainInfo": chain_info(ask.key, ask.net)}, found.token)
    )


def txs_json(st: State, ask: TxAsk, found: TxPage) -> list[dict[str, Any]]:
    as_string = ask.key != "P" and st.settings.utxo_output_index == "string"
    emitted: dict[str, list[dict[str, Any]]] = defaultdict(list)
    consumed: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for u in found.utxos:
        emitted[u.tx_hash].append(utxo_json(u, ask.net, found.assets, ask.key, as_string))
        if u.consuming_tx_hash is not None:
            consumed[u.consuming_tx_hash].append(
                utxo_json(u, ask.net, found.assets, ask.key, as_string)
            )
    return [
        _tx_json(r, ask, found, consumed.get(r.tx_hash, []), emitted.get(r.tx_hash, []))
        for r in found.served
    ]


def _tx_json(
    r: Any,
    ask: TxAsk,
    found: TxPage,
    consumed: list[dict[str, Any]],
    emitted: list[dict[str, Any]],
) -> dict[str, Any]:
    body = found.bodies[r.tx_hash]
    unlocked = body.pop("_spendCredentials", {})
    for spent in consumed:
        if spent["utxoId"] in unlocked:
            spent["credentials"] = unlocked[spent["utxoId"]]
    body.update(
        {
            "txHash": r.tx_hash,
            "blockNumber": str(r.block_number),
            "blockHash": r.block_hash,
            "blockTimestamp": int(r.block_timestamp),
            "consumedUtxos": consumed,
            "emittedUtxos": emitted,
        }
    )
    refund = found.refunds.get(r.tx_hash)
    refunded = next(
        (int(u["amount"]) for u in body["emittedUtxos"] if refund and u["utxoId"] == refund[0]),
        0,
    )
    shapes.chain_fields(ask.key, ask.net, body, found.assets, refunded)
    found.l1_facts.complete(body, _position(r))
    if refunded:
        shapes.mark_refund(body, refunded)
    facts = found.periods.get(r.tx_hash)
    if facts is not None:
        body.update(_staking_extras(facts))
    if ask.key == "P":
        body["txType"] = shapes.p_tx_type(body["txType"])
    return body


U256_MAX = 2**256 - 1


def _at_least(value: Decimal) -> int:
    """The smallest whole amount a UTXO needs to reach `value` (the spec's minUtxoAmount is
    any number >= 0); beyond uint256 nothing can, and the bound stays bindable."""
    return math.ceil(min(value, Decimal(U256_MAX)))


def chain_info(key: str, net: str) -> dict[str, str]:
    return {"chainName": CHAIN_NAMES[key], "network": "mainnet" if net == "mainnet" else "fuji"}


def _staking_extras(facts: Any) -> dict[str, Any]:
    """What a staking tx's period adds: the reward tx once rewarded, the reward addresses,
    and estimatedReward: the potential reward the formula gives the staker (the node's own
    figure while the period is current, else the indexer's supply replay), else the reward
    paid (nothing when none is known)."""
    out: dict[str, Any] = {"rewardAddresses": orjson.loads(facts.reward_addresses)}
    if facts.reward_tx_hash is not None:
        out["rewardTxHash"] = facts.reward_tx_hash
    if facts.potential_reward is not None:
        out["estimatedReward"] = str(int(facts.potential_reward))
    elif facts.formula_reward is not None:
        out["estimatedReward"] = str(int(facts.formula_reward))
    elif facts.validation_reward is not None:
        out["estimatedReward"] = str(int(facts.validation_reward))
    return out


@router.get(
    "/v1/networks/{network}/blockchains/{blockchainId}/transactions",
    operation_id="listLatestPrimaryNetworkTransactions",
    responses={
        **ok(
            "ListPChainTransactionsResponse",
            "ListXChainTransactionsResponse",
            "ListCChainAtomicTransactionsResponse",
        ),
        **ERROR_RESPONSES,
    },
    response_model=None,
)
@on_store
def list_transactions(
    st: State,
    q: TxQuery,
    network: Network,
    blockchain_id: BlockchainId,
    addresses: Addresses = None,
    l1ValidationId: Annotated[
        str | None,
        Query(
            pattern=CB58_ID,
            description="CB58 L1 validation ID; on the P-chain, without addresses",
        ),
    ] = None,
) -> JsonResponse:
    return _tx_list(
        st, "primary_txs", network, blockchain_id, addresses, q, l1_validation_id=l1ValidationId
    )


@router.get(
    "/v1/networks/{network}/blockchains/{blockchainId}/transactions:listStaking",
    operation_id="listActivePrimaryNetworkStakingTransactions",
    responses={**ok("ListPChainTransactionsResponse"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def list_staking(
    st: State,
    q: TxQuery,
    network: Network,
    blockchain_id: PChainId,
    addresses: RequiredAddresses,
) -> JsonResponse:
    return _tx_list(st, "primary_staking", network, blockchain_id, addresses, q, staking=True)


class UtxoFilters(NamedTuple):
    """What both UTXO lists (GET and the POST V2) take besides the addresses."""

    page_token: str | None
    page_size: int
    asset_id: str | None
    min_amount: Decimal
    include_spent: bool
    sort_by: str | None
    sort_order: str | None


async def _utxo_filters(
    pageToken: PageToken = None,
    assetId: Annotated[
        str | None, Query(pattern=CB58_ID, description="CB58 asset ID; on the X-chain only")
    ] = None,
    minUtxoAmount: Annotated[
        Decimal,
        Query(
            ge=0,
            description="nAVAX, inclusive",
            json_schema_extra={"anyOf": [{"type": "number", "minimum": 0}]},
        ),
    ] = Decimal(0),
    includeSpent: Annotated[bool, Query()] = False,
    sortBy: Annotated[str | None, Query(pattern="^(timestamp|amount)$")] = None,
    sortOrder: SortOrder = None,
) -> UtxoFilters:
    # pageSize is the route's own (V2 allows up to 1,024).
    return UtxoFilters(pageToken, 0, assetId, minUtxoAmount, includeSpent, sortBy, sortOrder)


UtxoQuery = Annotated[UtxoFilters, Depends(_utxo_filters)]


def utxo_list(
    st: State, route: str, network: str, blockchain_id: str, addresses: str | None, q: UtxoFilters
) -> JsonResponse:
    """A page of the addresses' UTXOs (getUtxosByAddresses and its POST V2)."""
    net, key, addrs = params.addressed(st, network, blockchain_id, addresses)
    if q.asset_id is not None and key != "X":
        raise bad_request("assetId: only on the X-chain")
    asset = params.asset_id(q.asset_id)
    by_amount = q.sort_by == "amount"
    desc = q.sort_order != "asc"
    filters = {
        "chain": key,
        "addresses": addrs,
        "asset": asset,
        "min": str(q.min_amount),
        "spent": q.include_spent,
        "by": "amount" if by_amount else "timestamp",
        "d": desc,
    }
    pg = page(st, route, filters, q.page_token, q.page_size, arity=2)
    with read_conn(st) as conn:
        rows = queries.list_utxos(
            conn,
            queries.Window(key, addrs, pg.after, pg.size + 1, desc),
            include_spent=q.include_spent,
            min_amount=_at_least(q.min_amount),
            asset_id=asset,
            by_amount=by_amount,
        )
        assets = Assets(net, key).load(conn, [r.asset_id for r in rows])
        assets.stake_periods = validator_queries.stake_periods(
            conn, [r.tx_hash for r in rows if r.staked]
        )
        served, token = cut(
            rows,
            pg,
            lambda r: (str(r.amount) if by_amount else int(r.block_timestamp), str(r.utxo_id)),
        )
        unlocked = queries.spend_credentials(
            conn, [(r.consumed_on, r.consuming_tx_hash) for r in served if r.consuming_tx_hash]
        )
    as_string = key != "P" and st.settings.utxo_output_index == "string"
    utxos = []
    for r in served:
        out = utxo_json(r, net, assets, key, as_string)
        creds = unlocked.get(r.consuming_tx_hash or "", {}).get(r.utxo_id)
        if creds is not None:
            out["credentials"] = creds
        utxos.append(out)
    return JsonResponse(with_token({"utxos": utxos, "chainInfo": chain_info(key, net)}, token))


@router.get(
    "/v1/networks/{network}/blockchains/{blockchainId}/utxos",
    operation_id="getUtxosByAddresses",
    responses={**ok("ListPChainUtxosResponse", "ListUtxosResponse"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def list_utxos(
    st: State,
    q: UtxoQuery,
    network: Network,
    blockchain_id: BlockchainId,
    addresses: RequiredAddresses,
    pageSize: PageSize = 10,
) -> JsonResponse:
    return utxo_list(
        st, "primary_utxos", network, blockchain_id, addresses, q._replace(page_size=pageSize)
    )


@router.get(
    "/v1/networks/{network}/blockchains/{blockchainId}/transactions/{txHash}",
    operation_id="getTxByHash",
    responses={
        **ok(
            "PChainTransaction",
            "XChainNonLinearTransaction",
            "XChainLinearTransaction",
            "CChainExportTransaction",
            "CChainImportTransaction",
        ),
        **ERROR_RESPONSES,
    },
    response_model=None,
)
@on_store
def get_tx(
    st: State,
    network: Network,
    blockchain_id: BlockchainId,
    tx_hash: Annotated[
        str, Path(alias="txHash", pattern=CB58_ID, description="CB58 transaction ID")
    ],
) -> JsonResponse:
    """One tx of a primary chain, in the shape its chain's listing serves it."""
    net = params.network(network, params.indexed_network(st))
    key = params.chain(net, blockchain_id)
    wanted = params.tx_hash(tx_hash)
    ask = TxAsk(net, key, [], [], None)
    with read_conn(st) as conn:
        rows = queries.tx_by_hash(conn, key, wanted)
        if not rows:
            raise not_found(f"txHash: no transaction {wanted} on the {CHAIN_NAMES[key]}")
        found = tx_facts(conn, ask, rows, None, None)
    return JsonResponse(txs_json(st, ask, found)[0])
