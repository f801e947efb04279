"""GET /v1/networks/{network}/delegators (listDelegators): primary-network delegations,
newest staking tx first unless sortOrder=asc, each in the shape of its delegationStatus.

Stage: api. Rows are `primary_validations`' delegator periods (store/primary/queries/
stakers.py). The reward a delegation earns is the reward formula's potential reward (the
node's figure while it is current, else the indexer's replay): its gross reward; the
delegator keeps that minus the validator's fee (split_delegation, avalanchego's integer
split). A completed delegation's net reward is what its reward UTXOs paid (0 when aborted).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, Query

from avadata.api.deps import State, on_store, read_conn
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES
from avadata.api.paging import Page, PageSize, PageToken, cut, page, with_token
from avadata.api.patterns import bech32_addresses, node_ids
from avadata.api.primary import params
from avadata.api.primary.openapi import ok
from avadata.api.primary.routes import Network
from avadata.decode.primary.reward import split_delegation
from avadata.store.primary.queries import stakers
from avadata.store.primary.queries import validators as queries
from avadata.store.types import Connection

router = APIRouter(tags=["Primary Network"])


NodeIds = Annotated[
    str | None,
    Query(
        pattern=node_ids(params.MAX_NODE_IDS),
        description=f"comma-separated NodeID-... (at most {params.MAX_NODE_IDS}); each "
        "checksum is checked",
    ),
]
_P_ADDRESSES = (
    f"comma-separated P-chain bech32 addresses of the network's HRP (at most "
    f"{params.MAX_ADDRESSES}); each address's checksum is checked"
)
PAddresses = Annotated[
    str | None,
    Query(pattern=bech32_addresses(params.MAX_ADDRESSES), description=_P_ADDRESSES),
]


def potential(row: Any) -> int:
    """The period's potential reward: the node's figure, else the formula's; 0 unknown."""
    for known in (row.potential_reward, row.formula_reward):
        if known is not None:
            return int(known)
    return 0


def period_page(
    conn: Connection, f: stakers.PeriodFilter, pg: Page, desc: bool
) -> tuple[int, Sequence[Any], str | None] | None:
    """The P-chain's time and one page of the periods `f` selects, newest staking tx first
    unless not `desc`, with the next page's token; None before any P-chain block."""
    now = queries.p_chain_now(conn)
    if now is None:
        return None
    rows = stakers.list_periods(conn, f, now, pg.after, pg.size + 1, desc=desc)
    served, token = cut(rows, pg, lambda r: (int(r.block_timestamp), str(r.tx_hash)))
    return now, served, token


def delegator_json(row: Any, status: str, fee_ppm: int | None) -> dict[str, Any]:
    shares = fee_ppm or 0
    gross = potential(row)
    out: dict[str, Any] = {
        "txHash": row.tx_hash,
        "nodeId": row.node_id,
        "rewardAddresses": orjson.loads(row.reward_addresses),
        "amountDelegated": str(int(row.amount_staked)),
        "delegationFee": f"{shares / 10_000:.4f}",
        "startTimestamp": int(row.start_ts),
        "endTimestamp": int(row.end_ts),
    }
    if status == "completed":
        paid = row.reward_committed is not False
        net = row.validation_reward
        out["grossReward"] = str(gross if paid else 0)
        out["netReward"] = str(
            int(net) if net is not None else split_delegation(gross, shares)[0] if paid else 0
        )
    else:
        out["estimatedGrossReward"] = str(gross)
        out["estimatedNetReward"] = str(split_delegation(gross, shares)[0])
    out["delegationStatus"] = status
    return out


@router.get(
    "/v1/networks/{network}/delegators",
    operation_id="listDelegators",
    responses={**ok("ListDelegatorDetailsResponse"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def list_delegators(
    st: State,
    network: Network,
    pageToken: PageToken = None,
    pageSize: PageSize = 10,
    rewardAddresses: PAddresses = None,
    sortOrder: Annotated[Literal["asc", "desc"] | None, Query()] = None,
    delegationStatus: Annotated[Literal["completed", "active", "pending"] | None, Query()] = None,
    nodeIds: NodeIds = None,
) -> JsonResponse:
    net = params.network(network, params.indexed_network(st))
    owners = params.addresses(net, "P", rewardAddresses, name="rewardAddresses")
    f = stakers.PeriodFilter(
        kinds=("delegator",),
        status=delegationStatus,
        node_ids=params.node_ids(nodeIds),
        reward_addresses=tuple("P-" + a for a in owners),
    )
    desc = sortOrder != "asc"
    pg = page(st, "delegators", {"f": repr(f), "d": desc}, pageToken, pageSize, arity=2)
    with read_conn(st) as conn:
        found = period_page(conn, f, pg, desc)
        if found is None:
            return JsonResponse({"delegators": []})
        now, served, token = found
        validators = stakers.validators_of(conn, served)
        out = []
        for row in served:
            validator = validators.get(row.tx_hash)
            fee = None if validator is None else validator.delegation_fee
            out.append(delegator_json(row, queries.status_of(row, now), fee))
    return JsonResponse(with_token({"delegators": out}, token))
