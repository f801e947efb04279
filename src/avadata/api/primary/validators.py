"""GET /v1/networks/{network}/validators/{nodeId}: a node's validation periods.

Stage: api. A paged list (reference 3.4), newest start first unless sortOrder=asc, each member
in the shape of its `validationStatus` (active, pending, completed, removed). Status is as of
the P-chain's current time (its newest indexed block). What only a node knows about current
stakers (potential rewards, uptime) comes from the indexer's snapshot of the node's
platform.getCurrentValidators; reward amounts of completed periods from its reward UTXOs.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, Path, Query

from avadata.api.deps import State, on_store, read_conn
from avadata.api.derived import Kept
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, bad_request
from avadata.api.paging import PageSize, PageToken, cut, page, with_token
from avadata.api.patterns import NODE_ID
from avadata.api.primary import params
from avadata.api.primary.openapi import ok
from avadata.api.primary.routes import Network
from avadata.decode.codec.ids import parse_node_id
from avadata.decode.codec.reader import DecodeError
from avadata.decode.primary.reward import delegation_capacity
from avadata.store.primary.queries import validators as queries
from avadata.store.types import Connection

router = APIRouter(tags=["Primary Network"])

Status = Literal["completed", "active", "pending", "removed"]


def _fee(shares: int | None) -> dict[str, str]:
    # parts per million -> percent, as the node prints it
    return {} if shares is None else {"delegationFee": f"{int(shares) / 10_000:.4f}"}


def _bls(row: Any) -> dict[str, Any]:
    if row.bls_public_key is None:
        return {}
    return {"blsCredentials": {"publicKey": row.bls_public_key, "proofOfPossession": row.bls_pop}}


def _potential(row: Any) -> int:
    # The node's figure, else the indexer's replay of the formula; 0 when neither is known.
    for known in (row.potential_reward, row.formula_reward):
        if known is not None:
            return int(known)
    return 0


def period_json(
    row: Any, status: str, delegators: list[Any], total_active: int, now: int
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "txHash": row.tx_hash,
        "nodeId": row.node_id,
        "subnetId": row.subnet_id,
        "amountStaked": str(int(row.amount_staked)),
        **_fee(row.delegation_fee),
        "startTimestamp": int(row.start_ts),
        "endTimestamp": int(row.end_ts),
        **_bls(row),
        "validationStatus": status,
    }
    if status == "active":
        current = [d for d in delegators if d.reward_tx_hash is None and d.start_ts <= now]
        weight = int(row.amount_staked)
        delegated = sum(int(d.amount_staked) for d in current)
        if row.kind == "validator":
            out["delegationCapacity"] = str(delegation_capacity(weight, delegated))
        out.update(
            {
                "stakePercentage": 100.0 * weight / total_active if total_active else 0.0,
                "delegatorCount": len(current),
                "amountDelegated": str(delegated),
                # Unknown without the node's snapshot: 0, never a guess above it.
                "uptimePerformance": float(row.uptime) if row.uptime is not None else 0.0,
                "potentialRewards": {
                    "validationRewardAmount": str(_potential(row)),
                    "delegationRewardAmount": str(int(row.delegatee_reward or 0)),
                    "rewardAddresses": orjson.loads(row.reward_addresses),
                },
                "validatorHealth": {
                    "reachabilityPercent": 100.0 if row.connected else 0.0,
                    "benchedPChainRequestsPercent": 0.0,
                    "benchedXChainRequestsPercent": 0.0,
                    "benchedCChainRequestsPercent": 0.0,
                },
                "geolocation": None,
            }
        )
    elif status == "completed":
        rewards: dict[str, Any] = {
            "validationRewardAmount": str(int(row.validation_reward or 0)),
            "delegationRewardAmount": str(int(row.delegation_reward or 0)),
            "rewardAddresses": orjson.loads(row.reward_addresses),
        }
        if row.reward_tx_hash is not None:
            rewards["rewardTxHash"] = row.reward_tx_hash
        out.update(
            {
                "delegatorCount": len(delegators),
                "amountDelegated": str(sum(int(d.amount_staked) for d in delegators)),
                "rewards": rewards,
            }
        )
    elif status == "removed":
        out.update(
            {"removeTxHash": row.remove_tx_hash, "removeTimestamp": int(row.remove_timestamp)}
        )
    return out


@router.get(
    "/v1/networks/{network}/validators/{nodeId}",
    operation_id="getSingleValidatorDetails",
    responses={**ok("ListValidatorDetailsResponse"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def validator_details(
    st: State,
    network: Network,
    node_id: Annotated[str, Path(alias="nodeId", pattern=NODE_ID, description="NodeID-...")],
    pageToken: PageToken = None,
    pageSize: PageSize = 10,
    validationStatus: Annotated[Status | None, Query()] = None,
    sortOrder: Annotated[str | None, Query(pattern="^(asc|desc)$")] = None,
) -> JsonResponse:
    params.network(network, params.indexed_network(st))
    try:
        parse_node_id(node_id)
    except DecodeError:
        raise bad_request(
            f"nodeId: must be a NodeID-... with a valid CB58 checksum (got {node_id!r})"
        ) from None
    desc = sortOrder != "asc"
    filters = {"node": node_id, "status": validationStatus, "d": desc}
    pg = page(st, "validator_details", filters, pageToken, pageSize, arity=2)
    with read_conn(st) as conn:
        now = queries.p_chain_now(conn)
        if now is None:
            return JsonResponse({"validators": []})
        rows = queries.list_validations(
            conn, node_id, now, pg.after, pg.size + 1, desc=desc, status=validationStatus
        )
        served, token = cut(rows, pg, lambda r: (int(r.start_ts), str(r.tx_hash)))
        out = shaped(conn, served, now, Kept(st.derived, (queries.p_chain_cursor(conn), now)))
    return JsonResponse(with_token({"validators": out}, token))


def shaped(
    conn: Connection, served: Sequence[Any], now: int, kept: Kept | None = None
) -> list[dict[str, Any]]:
    """The served periods, each in the shape of its status at `now`, with its delegators;
    each subnet's active stake is `kept` per P-chain head when given."""
    delegs = queries.delegations(conn, served)
    totals: dict[str, int] = {}
    out = []
    for row in served:
        status = queries.status_of(row, now)
        if status == "active" and row.subnet_id not in totals:
            subnet = str(row.subnet_id)
            stake = functools.partial(queries.active_stake, conn, subnet, now)
            totals[subnet] = stake() if kept is None else kept.get(("stake", subnet), stake)
        mine = [
            d
            for d in delegs
            if (d.node_id, d.subnet_id) == (row.node_id, row.subnet_id)
            and row.start_ts <= d.start_ts < row.end_ts
        ]
        out.append(period_json(row, status, mine, totals.get(row.subnet_id, 0), now))
    return out
