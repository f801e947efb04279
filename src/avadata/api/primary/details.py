"""GET /v1/networks/{network}: the primary network's active staking at the P-chain's current
time (its newest indexed block's).

Stage: api. Counts and stake of the active primary validators and delegators;
`estimatedAnnualStakingReward` sums their potential rewards (the node's figure, else the
indexer's reward formula); `stakingRatio` is the active stake over the supply the node last
reported (platform.getCurrentSupply; "0" before it has answered); no source tells node
versions, so `stakingDistributionByVersion` is empty.
"""

from __future__ import annotations

from decimal import Decimal

from fastapi import APIRouter

from avadata.api.deps import State, on_store, read_conn
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES
from avadata.api.primary import params
from avadata.api.primary.openapi import ok
from avadata.api.primary.routes import Network
from avadata.store.primary.queries import validators as queries

router = APIRouter(tags=["Primary Network"])


@router.get(
    "/v1/networks/{network}",
    operation_id="getNetworkDetails",
    responses={**ok("GetNetworkDetailsResponse"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def network_details(st: State, network: Network) -> JsonResponse:
    params.network(network, params.indexed_network(st))
    with read_conn(st) as conn:
        now = queries.p_chain_now(conn)
        rows = queries.active_primary_stakes(conn, now) if now is not None else []
        supply = queries.current_supply(conn)
    validators = [r for r in rows if r.kind == "validator"]
    delegators = [r for r in rows if r.kind == "delegator"]
    staked = sum(int(r.amount_staked) for r in rows)
    rewards = sum(
        int(r.potential_reward if r.potential_reward is not None else r.formula_reward or 0)
        for r in rows
    )
    ratio = Decimal(staked) / Decimal(supply) if supply else Decimal(0)
    return JsonResponse(
        {
            "validatorDetails": {
                "validatorCount": len(validators),
                "totalAmountStaked": str(sum(int(r.amount_staked) for r in validators)),
                "estimatedAnnualStakingReward": str(rewards),
                "stakingDistributionByVersion": [],
                "stakingRatio": str(ratio),
            },
            "delegatorDetails": {
                "delegatorCount": len(delegators),
                "totalAmountStaked": str(sum(int(r.amount_staked) for r in delegators)),
            },
        }
    )
