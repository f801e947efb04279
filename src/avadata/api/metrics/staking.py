"""GET /v2/networks/{network}/metrics/{metric} (getStakingMetrics) and
GET /v2/subnets/{subnetId}/validators:getAddresses (getValidatorsByDateRange).

Stage: api. The store holds one network's P-chain: `{network}` is checked (mainnet, fuji,
testnet) and the store's rows answer: the staking series from the P-chain rollup
(store/metrics/pchain_reads.py: closed days' rows, the newest day from the pending marks).
Staking series page like the chain series (newest first, UUID page tokens); the
reward-address listing pages by keyset (api/paging.py).
"""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Path, Query
from fastapi.responses import Response

from avadata.api import paging
from avadata.api.deps import read_conn
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, bad_request, not_found
from avadata.api.metrics.models import MetricsApiResponse, PChainLookingGlassResponse
from avadata.api.metrics.routes import Timestamp
from avadata.api.metrics.service import Metrics, MetricsState
from avadata.api.metrics.tokens import PageQuery
from avadata.api.patterns import CB58_ID, one_of
from avadata.decode.codec.ids import cb58_decode
from avadata.metrics import buckets
from avadata.metrics.buckets import Interval
from avadata.metrics.staking import NetworkMetric
from avadata.records.primary import PRIMARY_SUBNET
from avadata.store.metrics import pchain_reads, staking_reads
from avadata.store.types import Connection

router = APIRouter(tags=["Metrics"])

NETWORKS = ("mainnet", "fuji", "testnet")


def check_network(value: str) -> str:
    if value not in NETWORKS:
        raise bad_request(f"network: must be one of mainnet, fuji, testnet (got {value[:80]!r})")
    return "testnet" if value == "fuji" else value


def check_subnet(conn: Connection, value: str) -> str:
    """A known subnet's ID: 400 when it is not a cb58 ID, 404 when the store has none of it."""
    try:
        ok = len(cb58_decode(value)) == 32
    except ValueError:  # the codec's DecodeError is one
        ok = False
    if not ok:
        raise bad_request(f"subnetId: not a subnet ID (got {value[:80]!r})")
    if not staking_reads.known_subnet(conn, value):
        raise not_found(f"subnetId: no validator of subnet {value} is indexed")
    return value


def _bounds(start: int | None, end: int | None) -> None:
    if start is not None and end is not None and start > end:
        raise bad_request(f"startTimestamp: must be <= endTimestamp ({start} > {end})")


def staking_values(
    conn: Connection, subnet_id: str, kind: str, lo: int, hi: int, now: int
) -> dict[int, tuple[int, int]]:
    """(count, weight) at the close of each day in [lo, hi]: the closed days' rollup rows, and
    for the newest day (`now`'s) the day before's plus the marks up to `now`."""
    newest = buckets.start(now, Interval.DAY)
    values = pchain_reads.staking_days(conn, subnet_id, kind, lo, min(hi, newest - buckets.DAY))
    if hi >= newest:
        before = pchain_reads.staking_days(conn, subnet_id, kind, newest - buckets.DAY, newest)
        c, w = before.get(newest - buckets.DAY, (0, 0))
        dc, dw = pchain_reads.staking_pending(conn, subnet_id, kind, newest, now)
        values[newest] = (c + dc, w + dw)
    return values


def _staking_page(
    conn: Connection,
    m: MetricsState,
    key: str,
    metric: NetworkMetric,
    subnet_id: str,
    window: tuple[int | None, int | None],
    size: int,
    token: str | None,
) -> dict[str, Any]:
    body: dict[str, Any] = {"results": []}
    clock = pchain_reads.clock(conn)
    chosen = staking_reads.kinds(subnet_id, metric.delegators)
    if clock is None or not chosen:
        return body
    now, kind = clock.now, chosen[0]
    first_day = pchain_reads.staking_first_day(conn, subnet_id, kind)
    if first_day is None:
        return body
    last_day = buckets.start(now, Interval.DAY)
    if token:
        q = m.tokens.redeem(token, "staking")
        if (q.chain_id, q.metric) != (key, metric.value):
            raise bad_request(
                "pageToken: token was issued for another network, subnet or metric; "
                "start again from the first page (request without pageToken)"
            )
        oldest, newest = q.oldest, q.newest
    else:
        start, end = window
        oldest = (
            first_day if start is None else max(first_day, -(-start // buckets.DAY) * buckets.DAY)
        )
        newest = last_day if end is None else min(last_day, buckets.start(end, Interval.DAY))
    if oldest > newest:
        return body
    page_oldest = max(oldest, newest - (size - 1) * buckets.DAY)
    values = staking_values(conn, subnet_id, kind, page_oldest, newest, now)
    pick = 1 if metric.weight else 0
    body["results"] = [
        {"value": values.get(d, (0, 0))[pick], "timestamp": d}
        for d in range(newest, page_oldest - 1, -buckets.DAY)
    ]
    if page_oldest > oldest:
        body["nextPageToken"] = m.tokens.issue(
            PageQuery("staking", key, metric.value, "day", oldest, page_oldest - buckets.DAY)
        )
    return body


@router.get(
    "/v2/networks/{network}/metrics/{metric}",
    operation_id="getStakingMetrics",
    responses={200: {"model": MetricsApiResponse}, **ERROR_RESPONSES},
    response_model=None,
)
def get_staking_metrics(
    m: Metrics,
    network: Annotated[
        str, Path(description="mainnet, fuji or testnet", json_schema_extra=one_of(NETWORKS))
    ],
    metric: Annotated[
        str, Path(description=", ".join(NetworkMetric), json_schema_extra=one_of(NetworkMetric))
    ],
    start_ts: Annotated[Timestamp, Query(alias="startTimestamp")] = None,
    end_ts: Annotated[Timestamp, Query(alias="endTimestamp")] = None,
    page_token: Annotated[str | None, Query(alias="pageToken")] = None,
    page_size: Annotated[int, Query(alias="pageSize", ge=1, le=2160)] = 100,
    subnet_id: Annotated[
        str, Query(alias="subnetId", pattern=CB58_ID, description="A CB58 subnet ID")
    ] = PRIMARY_SUBNET,
) -> Response:
    net = check_network(network)
    if metric not in NetworkMetric.__members__.values():
        raise bad_request(
            f"metric: must be one of {', '.join(NetworkMetric)} (got {metric[:80]!r})"
        )
    name = NetworkMetric(metric)
    _bounds(start_ts, end_ts)
    with read_conn(m.app) as conn:
        subnet = check_subnet(conn, subnet_id)
        body = _staking_page(
            conn, m, f"{net}|{subnet}", name, subnet, (start_ts, end_ts), page_size, page_token
        )
    return JsonResponse(body)


@router.get(
    "/v2/subnets/{subnetId}/validators:getAddresses",
    operation_id="getValidatorsByDateRange",
    responses={200: {"model": PChainLookingGlassResponse}, **ERROR_RESPONSES},
    response_model=None,
)
def get_validator_addresses(
    m: Metrics,
    subnet_id: Annotated[
        str, Path(alias="subnetId", pattern=CB58_ID, description="A CB58 subnet ID")
    ],
    start_ts: Annotated[Timestamp, Query(alias="startTimestamp")] = None,
    end_ts: Annotated[Timestamp, Query(alias="endTimestamp")] = None,
    page_token: Annotated[str | None, Query(alias="pageToken")] = None,
    page_size: Annotated[int, Query(alias="pageSize", ge=1, le=5000)] = 1000,
    network: Annotated[str | None, Query(json_schema_extra=one_of(NETWORKS, optional=True))] = None,
) -> Response:
    net = check_network(network) if network is not None else None
    _bounds(start_ts, end_ts)
    filters = {"subnetId": subnet_id, "start": start_ts, "end": end_ts, "network": net}
    page = paging.page(m.app, "getValidatorsByDateRange", filters, page_token, page_size, arity=2)
    after = None
    if page.after is not None:
        ts, tx = page.after
        if not isinstance(ts, int) or not isinstance(tx, str):
            raise bad_request("pageToken: unknown page token (position of another route)")
        after = (ts, tx)
    with read_conn(m.app) as conn:
        subnet = check_subnet(conn, subnet_id)
        rows = staking_reads.reward_address_page(
            conn, subnet, start_ts, end_ts, after, page_size + 1
        )
    served, token = paging.cut(rows, page, lambda r: (int(r[0]), str(r[1])))
    body = {
        "addresses": [
            {"addresses": list(orjson.loads(r[2])), "sortKey": str(int(r[0]))} for r in served
        ]
    }
    return JsonResponse(paging.with_token(body, token))
