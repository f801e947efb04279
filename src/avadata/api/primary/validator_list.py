"""GET /v1/networks/{network}/validators (listValidators): every validation period, in the
shapes of getSingleValidatorDetails (validators.py), filtered and sorted as the reference's
parameters say.

Stage: api. Status, subnet, node IDs (substrings), fee, time remaining and uptime select rows
in the store; blockIndex (the staking tx's block time), timeRemaining and delegationFee are
keyset orders of the store. Delegation capacity depends on the delegators active now, so a
capacity bound or a sort by capacity or uptime reads the selected periods' keys (a narrow
read, no row to serve) and orders them here, the capacities computed once per P-chain head
(api/derived.py); then the page's rows are read (the positions are the same (value, tx hash)
pairs). Values that only active
periods have (capacity; uptime, the node's snapshot) leave the others out of a bound on them.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query

from avadata.api.deps import State, on_store, read_conn
from avadata.api.derived import Kept
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, bad_request
from avadata.api.paging import Page, PageSize, PageToken, page, with_token
from avadata.api.patterns import CB58_ID, at_most, listed
from avadata.api.primary import params
from avadata.api.primary.openapi import ok
from avadata.api.primary.routes import Network
from avadata.api.primary.validators import Status, active_delegations, shaped
from avadata.decode.primary.reward import delegation_capacity
from avadata.records.primary import PRIMARY_SUBNET
from avadata.store.primary.queries import stakers
from avadata.store.primary.queries import validators as queries
from avadata.store.types import Connection

router = APIRouter(tags=["Primary Network"])

SortBy = Literal[
    "blockIndex", "delegationCapacity", "timeRemaining", "delegationFee", "uptimePerformance"
]
Order = Annotated[Literal["asc", "desc"] | None, Query(alias="sortOrder")]
MAX_CAPACITY = 720_000_000 * 10**9  # the reference's bound: the supply cap
_NODE_PART = re.compile(r"[A-Za-z0-9-]{1,64}")
NodeParts = Annotated[
    str | None,
    Query(
        pattern=listed(_NODE_PART.pattern, params.MAX_NODE_IDS),
        description=f"comma-separated node IDs or parts of them (at most {params.MAX_NODE_IDS})",
    ),
]
Capacity = Annotated[
    str | None, Query(pattern=at_most(MAX_CAPACITY), description=f"nAVAX, 0 to {MAX_CAPACITY}")
]
SubnetId = Annotated[str | None, Query(pattern=CB58_ID, description="CB58 subnet ID")]


def node_parts(value: str | None) -> tuple[str, ...]:
    """Comma-separated node IDs or parts of them (the reference matches substrings)."""
    if value is None or not value.strip():
        return ()
    given = [p.strip() for p in value.split(",") if p.strip()]
    if len(given) > params.MAX_NODE_IDS:
        raise bad_request(f"nodeIds: at most {params.MAX_NODE_IDS} node IDs, got {len(given)}")
    for p in given:
        if not _NODE_PART.fullmatch(p):
            raise bad_request(f"nodeIds: {p[:80]!r} is not a node ID nor part of one")
    return tuple(sorted(set(given)))


def _capacity(name: str, value: str | None) -> int | None:
    if value is None:
        return None
    text = value.strip()
    if not text.isdigit() or int(text) > MAX_CAPACITY:
        raise bad_request(f"{name}: an integer of nAVAX from 0 to {MAX_CAPACITY} (got {value!r})")
    return int(text)


def bounds(
    name: str, low: Any, high: Any, scale: Callable[[Any], Any] = lambda x: x
) -> tuple[Any, Any]:
    """(min, max) of a min<name>/max<name> pair, scaled; 400 naming min<name> if min > max."""
    if low is not None and high is not None and low > high:
        raise bad_request(f"min{name}: must be <= max{name} ({low} > {high})")
    return (None if low is None else scale(low), None if high is None else scale(high))


def _seconds(x: float) -> int:
    return int(x)


def _ppm(x: float) -> int:
    # percent -> parts per million, as the store keeps delegation fees
    return round(x * 10_000)


@router.get(
    "/v1/networks/{network}/validators",
    operation_id="listValidators",
    responses={**ok("ListValidatorDetailsResponse"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def list_validators(
    st: State,
    network: Network,
    pageToken: PageToken = None,
    pageSize: PageSize = 10,
    nodeIds: NodeParts = None,
    sortBy: Annotated[SortBy | None, Query()] = None,
    sortOrder: Order = None,
    validationStatus: Annotated[Status | None, Query()] = None,
    minDelegationCapacity: Capacity = None,
    maxDelegationCapacity: Capacity = None,
    minTimeRemaining: Annotated[float | None, Query(ge=0, le=2147483647)] = None,
    maxTimeRemaining: Annotated[float | None, Query(ge=0, le=2147483647)] = None,
    minFeePercentage: Annotated[float | None, Query(ge=2, le=100)] = None,
    maxFeePercentage: Annotated[float | None, Query(ge=2, le=100)] = None,
    minUptimePerformance: Annotated[float | None, Query(ge=0, le=100)] = None,
    maxUptimePerformance: Annotated[float | None, Query(ge=0, le=100)] = None,
    subnetId: SubnetId = None,
) -> JsonResponse:
    params.network(network, params.indexed_network(st))
    capacity = bounds(
        "DelegationCapacity",
        _capacity("minDelegationCapacity", minDelegationCapacity),
        _capacity("maxDelegationCapacity", maxDelegationCapacity),
    )
    remaining = bounds("TimeRemaining", minTimeRemaining, maxTimeRemaining, _seconds)
    f = stakers.PeriodFilter(
        kinds=("validator", "subnet_validator"),
        status=validationStatus,
        subnet_id=None if subnetId is None else params.subnet_id(subnetId),
        node_parts=node_parts(nodeIds),
        fee_ppm=bounds("FeePercentage", minFeePercentage, maxFeePercentage, _ppm),
        uptime=bounds("UptimePerformance", minUptimePerformance, maxUptimePerformance),
    )
    sort = sortBy or "blockIndex"
    desc = sortOrder != "asc"
    filters = {"f": repr(f), "rem": remaining, "cap": capacity, "s": sort, "d": desc}
    pg = page(st, "validators", filters, pageToken, pageSize, arity=2)
    with read_conn(st) as conn:
        now = queries.p_chain_now(conn)
        if now is None:
            return JsonResponse({"validators": []})
        # Time remaining is max(0, end - now): bounds on it are bounds on the end.
        low, high = remaining
        ends = (None if not low else now + low, None if high is None else now + high)
        f = dataclasses.replace(f, ends=ends)
        kept = Kept(st.derived, (queries.p_chain_cursor(conn), now))
        served, token = _page(conn, kept, f, now, (sort, desc), capacity, pg)
        out = shaped(conn, served, now, kept)
    return JsonResponse(with_token({"validators": out}, token))


def _page(
    conn: Connection,
    kept: Kept,
    f: stakers.PeriodFilter,
    now: int,
    order: tuple[str, bool],
    capacity: tuple[int | None, int | None],
    pg: Page,
) -> tuple[Sequence[Any], str | None]:
    """One page of the periods `f` selects: a keyset query when the store can order and
    filter them, else the selected periods' keys ranked here and the page's rows read."""
    sort, desc = order
    if sort in stakers.SQL_SORTS and capacity == (None, None):
        rows = stakers.list_periods(conn, f, now, pg.after, pg.size + 1, desc=desc, sort=sort)
        more = len(rows) > pg.size
        return rows[: pg.size], pg.token(_sql_key(sort)(rows[pg.size - 1])) if more else None
    # The ranking is kept per P-chain head and staker snapshot (the uptimes come with it).
    ranking = Kept(kept.cache, (*kept.head, queries.stakers_snapshots(conn)))
    ranked = ranking.get(
        ("ranked", repr(f), sort, capacity, desc),
        lambda: _ranked(conn, kept, f, now, sort, capacity, desc),
    )
    start = 0 if pg.after is None else _position(ranked, pg.after, desc)
    keys = ranked[start : start + pg.size + 1]
    served = stakers.periods(conn, [tx for _, tx in keys[: pg.size]])
    return served, pg.token(keys[pg.size - 1][0]) if len(keys) > pg.size else None


def _position(ranked: list[tuple[tuple[int, str], str]], after: Any, desc: bool) -> int:
    """The index of the first ranked period past `after` in the page's direction."""
    position = (int(after[0]), str(after[1]))
    # `ranked` is in the page's order, so "past `after`" is false then true along it
    if desc:
        return bisect.bisect_left(ranked, True, key=lambda r: r[0] < position)
    return bisect.bisect_left(ranked, True, key=lambda r: r[0] > position)


def _sql_key(sort: str) -> Callable[[Any], tuple[int, str]]:
    if sort == "timeRemaining":
        return lambda r: (int(r.end_ts), str(r.tx_hash))
    if sort == "delegationFee":
        return lambda r: (-1 if r.delegation_fee is None else int(r.delegation_fee), str(r.tx_hash))
    return lambda r: (int(r.block_timestamp), str(r.tx_hash))


def capacities(conn: Connection, kept: Kept, now: int) -> dict[str, int]:
    """tx hash -> delegation capacity of every active validator period at `now` (its stake
    against what its node's active primary delegations hold)."""
    held = active_delegations(conn, kept, now)
    return {
        str(r.tx_hash): delegation_capacity(
            int(r.amount_staked), held.get((str(r.node_id), PRIMARY_SUBNET), (0, 0))[1]
        )
        for r in stakers.active_validators(conn, now)
    }


def _ranked(
    conn: Connection,
    kept: Kept,
    f: stakers.PeriodFilter,
    now: int,
    sort: str,
    capacity: tuple[int | None, int | None],
    desc: bool,
) -> list[tuple[tuple[int, str], str]]:
    """((sort value, tx hash), tx hash) of every period `f` selects within the capacity
    bounds, in the page's order; the capacities kept per P-chain head."""
    rows = list(stakers.period_keys(conn, f, now))
    caps = kept.get("capacities", lambda: capacities(conn, kept, now))
    low, high = capacity
    if capacity != (None, None):
        rows = [
            r
            for r in rows
            if r.tx_hash in caps
            and (low is None or caps[r.tx_hash] >= low)
            and (high is None or caps[r.tx_hash] <= high)
        ]

    def key(r: Any) -> tuple[int, str]:
        if sort == "delegationCapacity":
            return (caps.get(r.tx_hash, -1), str(r.tx_hash))
        if sort == "uptimePerformance":
            if queries.status_of(r, now) != "active":
                return (-1, str(r.tx_hash))
            # as served: the node's uptime, 0 while it has none to give
            return (round(float(r.uptime or 0.0) * 10_000), str(r.tx_hash))
        return _sql_key(sort)(r)

    return sorted(((key(r), str(r.tx_hash)) for r in rows), reverse=desc)
