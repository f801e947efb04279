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
from avadata.store.primary.queries import stakers
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
    row: Any, status: str, delegated: tuple[int, int], total_active: int
) -> dict[str, Any]:
    """A period in the shape of its status; `delegated` the (count, stake) of its delegations:
    the active ones of an active period, every one of a completed period."""
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
    count, held = delegated
    if status == "active":
        weight = int(row.amount_staked)
        if row.kind == "validator":
            out["delegationCapacity"] = str(delegation_capacity(weight, held))
        out.update(
            {
                "stakePercentage": 100.0 * weight / total_active if total_active else 0.0,
                "delegatorCount": count,
                "amountDelegated": str(held),
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
                "delegatorCount": count,
                "amountDelegated": str(held),
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


def shaped(conn: Connection, served: Sequence[Any], now: int, kept: Kept) -> list[dict[str, Any]]:
    """The served periods, each in the shape of its status at `now`. What an active period
    reads (its node's active delegations, its subnet's active stake) is `kept` per P-chain
    head; a completed period's delegations are read for the page's completed periods."""
    statuses = [queries.status_of(row, now) for row in served]
    active = active_delegations(conn, kept, now) if "active" in statuses else {}
    completed = [r for r, s in zip(served, statuses, strict=True) if s == "completed"]
    done = _completed_delegations(conn, completed)
    totals: dict[str, int] = {}
    out = []
    for row, status in zip(served, statuses, strict=True):
        key = (str(row.node_id), str(row.subnet_id))
        if status == "active":
            subnet = key[1]
            if subnet not in totals:
                stake = functools.partial(queries.active_stake, conn, subnet, now)
                totals[subnet] = kept.get(("stake", subnet), stake)
            delegated = active.get(key, (0, 0))
        else:
            starts = done.get(key, [])
            mine = [amount for start, amount in starts if row.start_ts <= start < row.end_ts]
            delegated = (len(mine), sum(mine))
        out.append(period_json(row, status, delegated, totals.get(key[1], 0)))
    return out


def active_delegations(
    conn: Connection, kept: Kept, now: int
) -> dict[tuple[str, str], tuple[int, int]]:
    """(node ID, subnet ID) -> (count, stake) of its active delegations, kept per P-chain head."""
    return kept.get("delegated", lambda: stakers.active_delegations(conn, now))


def _completed_delegations(
    conn: Connection, periods: Sequence[Any]
) -> dict[tuple[str, str], list[tuple[int, int]]]:
    """(node ID, subnet ID) -> (start, stake) of the delegations within these periods."""
    out: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for d in queries.delegations(conn, periods):
        key = (str(d.node_id), str(d.subnet_id))
        out.setdefault(key, []).append((int(d.start_ts), int(d.amount_staked)))
    return out
