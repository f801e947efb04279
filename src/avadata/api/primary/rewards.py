"""GET /v1/networks/{network}/rewards:listPending and /rewards (listPendingPrimaryNetworkRewards,
listHistoricalPrimaryNetworkRewards): the rewards of primary-network stakes, by reward
address or node.

Stage: api. Pending: the validator and delegator periods still staked (neither rewarded nor
removed), with the reward each would earn: a validator its potential reward, a delegator its
part after the validator's fee. Historical: the reward UTXOs the node reported for each
rewarded period (platform.getRewardUTXOs, kept by the indexer), newest first. `addresses`
selects the periods whose reward owner holds one of them. No prices: `currency` is checked
and the optional historicalPrice is left out.
"""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any, Literal, NamedTuple

import orjson
from fastapi import APIRouter, Depends, Query

from avadata.api.deps import State, on_store, read_conn
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, bad_request
from avadata.api.paging import PageSize, PageToken, cut, page, with_token
from avadata.api.primary import params
from avadata.api.primary.delegators import NodeIds, PAddresses, period_page, potential
from avadata.api.primary.openapi import ok
from avadata.api.primary.routes import Network
from avadata.api.primary.shapes import AVAX_IDS, Assets
from avadata.decode.primary.reward import split_delegation
from avadata.records.primary import PRIMARY_SUBNET
from avadata.store.primary.queries import stakers

router = APIRouter(tags=["Primary Network Rewards"])

Currency = Literal[
    "usd", "eur", "aud", "cad", "chf", "clp", "cny", "czk", "dkk", "gbp", "hkd", "huf", "jpy", "nzd"
]
Order = Annotated[Literal["asc", "desc"] | None, Query()]
KINDS = ("validator", "delegator")
REWARD_TYPE = {"validator": "VALIDATOR", "delegator": "DELEGATOR"}


class RewardsQuery(NamedTuple):
    """The query both rewards lists share."""

    addresses: str | None
    node_ids: str | None
    page_token: str | None
    page_size: int
    desc: bool


async def _rewards_query(
    addresses: PAddresses = None,
    pageToken: PageToken = None,
    pageSize: PageSize = 10,
    nodeIds: NodeIds = None,
    sortOrder: Order = None,
) -> RewardsQuery:
    # async: FastAPI runs a sync dependency in a worker thread.
    return RewardsQuery(addresses, nodeIds, pageToken, pageSize, sortOrder != "asc")


Asked = Annotated[RewardsQuery, Depends(_rewards_query)]


def _selection(st: State, network: str, q: RewardsQuery) -> Any:
    """(network key, filter) of a rewards request: one of addresses or nodeIds is needed."""
    net = params.network(network, params.indexed_network(st))
    owners = params.addresses(net, "P", q.addresses)
    nodes = params.node_ids(q.node_ids)
    if not owners and not nodes:
        raise bad_request("addresses: one of addresses or nodeIds is required")
    return net, stakers.PeriodFilter(
        kinds=KINDS, node_ids=nodes, reward_addresses=tuple("P-" + a for a in owners)
    )


def _bare(addresses: str) -> list[str]:
    return [a.rpartition("-")[2] for a in orjson.loads(addresses)]


@router.get(
    "/v1/networks/{network}/rewards:listPending",
    operation_id="listPendingPrimaryNetworkRewards",
    responses={**ok("ListPendingRewardsResponse"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def list_pending_rewards(st: State, network: Network, q: Asked) -> JsonResponse:
    net, f = _selection(st, network, q)
    f = dataclasses.replace(f, subnet_id=PRIMARY_SUBNET, staked_only=True)
    desc = q.desc
    pg = page(st, "pending_rewards", {"f": repr(f), "d": desc}, q.page_token, q.page_size, arity=2)
    with read_conn(st) as conn:
        found = period_page(conn, f, pg, desc)
        if found is None:
            return JsonResponse({"pendingRewards": []})
        now, served, token = found
        validators = stakers.validators_of(conn, [r for r in served if r.kind == "delegator"])
        asset = AVAX_IDS.get(net) or stakers.p_chain_asset(conn) or ""
    assets = Assets(net, "P")
    out = []
    for r in served:
        reward = potential(r)
        if r.kind == "delegator":
            validator = validators.get(r.tx_hash)
            reward = split_delegation(reward, getattr(validator, "delegation_fee", 0) or 0)[0]
        start, end = int(r.start_ts), int(r.end_ts)
        done = min(max(now - start, 0), end - start)
        out.append(
            {
                "addresses": _bare(r.reward_addresses),
                "txHash": r.tx_hash,
                "amountStaked": str(int(r.amount_staked)),
                "nodeId": r.node_id,
                "startTimestamp": start,
                "endTimestamp": end,
                "rewardType": REWARD_TYPE[r.kind],
                "progress": 100.0 * done / (end - start) if end > start else 100.0,
                "estimatedReward": assets.amount(asset, reward),
            }
        )
    return JsonResponse(with_token({"pendingRewards": out}, token))


@router.get(
    "/v1/networks/{network}/rewards",
    operation_id="listHistoricalPrimaryNetworkRewards",
    responses={**ok("ListHistoricalRewardsResponse"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def list_historical_rewards(
    st: State,
    network: Network,
    q: Asked,
    currency: Annotated[Currency | None, Query()] = None,
) -> JsonResponse:
    net, f = _selection(st, network, q)
    desc = q.desc
    pg = page(
        st, "historical_rewards", {"f": repr(f), "d": desc}, q.page_token, q.page_size, arity=2
    )
    with read_conn(st) as conn:
        rows = stakers.reward_utxos(conn, f, pg.after, pg.size + 1, desc=desc)
    served, token = cut(rows, pg, lambda r: (int(r.rewarded_at), str(r.utxo_id)))
    assets = Assets(net, "P")
    out = [
        {
            "addresses": _bare(r.addresses),
            "txHash": r.tx_hash,
            "amountStaked": str(int(r.amount_staked)),
            "nodeId": r.node_id,
            "startTimestamp": int(r.start_ts),
            "endTimestamp": int(r.end_ts),
            "rewardType": r.reward_type,
            "utxoId": r.utxo_id,
            "outputIndex": int(r.output_index),
            "reward": assets.amount(r.asset_id, int(r.amount)),
            "rewardTxHash": r.reward_tx_hash or "",
        }
        for r in served
    ]
    return JsonResponse(with_token({"historicalRewards": out}, token))
