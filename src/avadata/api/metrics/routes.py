"""GET /v2/chains/{chainId}/metrics/{metric} and the legacy GET /v1/avg_tps/{chainId}.

Stage: api. Validate, read the rollups (avadata.store.metrics.series_reads), shape the seed's JSON.

- Points are newest first, one per bucket (dense, zeros included) from the chain's first
  rolled-up bucket to its newest; timestamps are integer bucket starts.
- startTimestamp/endTimestamp need not be aligned: a point is returned when
  startTimestamp <= timestamp <= endTimestamp.
- The newest bucket may still grow; when a page holds it, the response carries the header
  `X-Avadata-Incomplete-Bucket: <timestamp>` (the body keeps the seed's shape exactly).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from fastapi.responses import Response

from avadata.api.deps import read_conn
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, ApiError, bad_request, not_found
from avadata.api.metrics.models import LegacyAvgTpsResponse, MetricsApiResponse
from avadata.api.metrics.service import Metrics
from avadata.api.metrics.tokens import PageQuery
from avadata.api.patterns import one_of
from avadata.metrics import buckets, series
from avadata.metrics.buckets import Interval
from avadata.metrics.catalog import METRICS, MetricName
from avadata.store.metrics import series_reads
from avadata.store.types import Connection

router = APIRouter(tags=["Metrics"])

INCOMPLETE_HEADER = "X-Avadata-Incomplete-Bucket"
V1_PAGE_SIZE = 100
_INTERVALS = {i.value: i for i in Interval}

ChainPath = Annotated[
    str,
    Path(
        alias="chainId",
        pattern="^([0-9]+|total|mainnet|testnet)$",
        description="An EVM chain ID, or total, mainnet, testnet",
    ),
]
INTERVALS = tuple(i.value for i in Interval)
# The last second of year 9999: a later time falls in no calendar week or month.
MAX_TIMESTAMP = 253_402_300_799
Timestamp = Annotated[
    int | None, Query(ge=0, le=MAX_TIMESTAMP, description="Unix seconds, up to year 9999")
]


def scope_of(conn: Connection, chain_id: str) -> series.Scope:
    scope = series_reads.resolve_scope(conn, chain_id)
    if scope is None:
        if chain_id.isdigit():
            raise not_found(f"chainId: chain {chain_id} is not indexed (see GET /v2/chains)")
        raise bad_request(
            f"chainId: must be an EVM chain ID or one of total, mainnet, testnet (got {chain_id!r})"
        )
    return scope


def _metric(name: str) -> MetricName:
    m = METRICS.get(name)
    if m is None:
        raise bad_request(f"metric: must be one of {', '.join(METRICS)} (got {name!r})")
    return m.name


def _interval(metric: MetricName, raw: str | None) -> Interval:
    interval = Interval.DAY if raw is None else _INTERVALS.get(raw)
    if interval is None:
        raise bad_request(f"timeInterval: must be one of hour, day, week, month (got {raw!r})")
    allowed = METRICS[metric.value].intervals
    if interval not in allowed:
        names = ", ".join(i.value for i in allowed)
        raise bad_request(f"timeInterval: {metric.value} accepts only {names} (got {raw!r})")
    return interval


def _first_start_at_or_after(ts: int, interval: Interval) -> int:
    b = buckets.start(ts, interval)
    return b if b == ts else buckets.following(b, interval)


def _page(
    conn: Connection,
    m: Metrics,
    route: str,
    chain_id: str,
    metric: MetricName,
    interval: Interval,
    start: int | None,
    end: int | None,
    size: int,
    token: str | None,
) -> tuple[dict[str, Any], dict[str, str], int | None]:
    """One page of points: (body, headers, newest block timestamp)."""
    scope = scope_of(conn, chain_id)
    if start is not None and end is not None and start > end:
        raise bad_request(f"startTimestamp: must be <= endTimestamp ({start} > {end})")
    body: dict[str, Any] = {"results": []}
    headers: dict[str, str] = {}
    ext = series_reads.extent(conn, scope, interval)
    # Only the v1 shape reports it (lastRun); v2 requests skip the query.
    last_block = series_reads.newest_block_ts(conn, scope) if route == "v1" else None
    if token:
        q = m.tokens.redeem(token, route)
        if (q.chain_id, q.metric, q.interval) != (chain_id, metric.value, interval.value):
            raise bad_request(
                "pageToken: token was issued for another chain, metric or timeInterval; "
                "start again from the first page (request without pageToken)"
            )
        oldest, newest = q.oldest, q.newest
    else:
        # No bucket starts at or after a start past the newest (and the calendar may have no
        # bucket after it to compute).
        if ext is None or (start is not None and start > ext[1]):
            return body, headers, last_block
        oldest = ext[0] if start is None else max(ext[0], _first_start_at_or_after(start, interval))
        newest = ext[1] if end is None else min(ext[1], buckets.start(end, interval))
    if ext is None or oldest > newest:
        return body, headers, last_block
    page_oldest = buckets.back(newest, size - 1, interval, oldest)
    try:
        pts = series_reads.points(conn, scope, metric, interval, page_oldest, newest)
    except series.ScopeNotReady:
        raise ApiError(
            503,
            f"chainId: the {chain_id} aggregate is being rebuilt after a chain joined; "
            "retry in a few seconds",
            headers={"Retry-After": "5"},
        ) from None
    body["results"] = [{"value": v, "timestamp": t} for t, v in pts]
    if page_oldest > oldest:
        body["nextPageToken"] = m.tokens.issue(
            PageQuery(
                route=route,
                chain_id=chain_id,
                metric=metric.value,
                interval=interval.value,
                oldest=oldest,
                newest=buckets.preceding(page_oldest, interval),
            )
        )
    if newest == ext[1]:
        headers[INCOMPLETE_HEADER] = str(ext[1])
    return body, headers, last_block


@router.get(
    "/v2/chains/{chainId}/metrics/{metric}",
    operation_id="getEvmChainMetrics",
    responses={
        200: {"model": MetricsApiResponse},
        503: {"description": "An aggregate is being rebuilt"},
        **ERROR_RESPONSES,
    },
    response_model=None,
)
def get_metrics(
    m: Metrics,
    chain_id: ChainPath,
    metric: Annotated[
        str, Path(description="One of the 17 metric names", json_schema_extra=one_of(METRICS))
    ],
    start_ts: Annotated[Timestamp, Query(alias="startTimestamp")] = None,
    end_ts: Annotated[Timestamp, Query(alias="endTimestamp")] = None,
    time_interval: Annotated[
        str | None,
        Query(
            alias="timeInterval",
            description="hour, day (default), week, month; each metric accepts some of them",
            json_schema_extra=one_of(INTERVALS, optional=True),
        ),
    ] = None,
    page_token: Annotated[str | None, Query(alias="pageToken")] = None,
    page_size: Annotated[int, Query(alias="pageSize", ge=1, le=2160)] = 100,
) -> Response:
    name = _metric(metric)
    interval = _interval(name, time_interval)
    # The connection is opened here, not by a dependency: FastAPI runs a sync dependency in
    # a worker thread of its own, and those hops cost more than the queries.
    with read_conn(m.app) as conn:
        body, headers, _ = _page(
            conn, m, "v2", chain_id, name, interval, start_ts, end_ts, page_size, page_token
        )
    return JsonResponse(body, headers=headers)


@router.get(
    "/v1/avg_tps/{chainId}",
    operation_id="getAvgTps",
    responses={200: {"model": LegacyAvgTpsResponse}, **ERROR_RESPONSES},
    response_model=None,
)
def get_avg_tps(
    m: Metrics,
    chain_id: ChainPath,
    page_token: Annotated[str | None, Query(alias="pageToken")] = None,
) -> Response:
    with read_conn(m.app) as conn:
        body, headers, last_block = _page(
            conn,
            m,
            "v1",
            chain_id,
            MetricName.AVG_TPS,
            Interval.DAY,
            None,
            None,
            V1_PAGE_SIZE,
            page_token,
        )
    out: dict[str, Any] = {
        "results": body["results"],
        "status": 200,
        # The newest rolled-up block's time: when the newest point last changed.
        "lastRun": last_block or 0,
    }
    if "nextPageToken" in body:
        out["nextPageToken"] = body["nextPageToken"]
    return JsonResponse(out, headers=headers)
