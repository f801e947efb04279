"""GET /v2/icm/timeseries (getICMTimeseries) and GET /v2/icm/summary (getICMSummary).

Stage: api. avadata does not index ICM (Teleporter) messages yet, so both answer the spec's
empty form after validating their parameters: no points, and a summary whose windows are all
0 for the pair asked ("" for an end not given). See docs/compatibility.md, issue 22.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, bad_request
from avadata.api.metrics.models import ICMMetricsApiResponse, ICMRollingWindowMetricsApiResponse
from avadata.api.metrics.routes import INTERVALS, Timestamp
from avadata.api.metrics.staking import NETWORKS, check_network
from avadata.api.patterns import one_of
from avadata.metrics.buckets import Interval
from avadata.metrics.rolling import WINDOWS

router = APIRouter(tags=["Metrics"])

_GROUP_BY = ("srcBlockchainId", "destBlockchainId", "srcBlockchainId,destBlockchainId")
GroupBy = Annotated[
    str | None, Query(alias="groupBy", json_schema_extra=one_of(_GROUP_BY, optional=True))
]
NetworkQuery = Annotated[str | None, Query(json_schema_extra=one_of(NETWORKS, optional=True))]


def _common(group_by: str | None, network: str | None) -> None:
    if group_by is not None and group_by not in _GROUP_BY:
        raise bad_request(f"groupBy: must be one of {', '.join(_GROUP_BY)} (got {group_by[:80]!r})")
    if network is not None:
        check_network(network)


@router.get(
    "/v2/icm/timeseries",
    operation_id="getICMTimeseries",
    responses={200: {"model": ICMMetricsApiResponse}, **ERROR_RESPONSES},
    response_model=None,
)
async def get_icm_timeseries(
    start_ts: Annotated[Timestamp, Query(alias="startTimestamp")] = None,
    end_ts: Annotated[Timestamp, Query(alias="endTimestamp")] = None,
    src: Annotated[str | None, Query(alias="srcBlockchainId")] = None,
    dest: Annotated[str | None, Query(alias="destBlockchainId")] = None,
    time_interval: Annotated[
        str | None, Query(alias="timeInterval", json_schema_extra=one_of(INTERVALS, optional=True))
    ] = None,
    page_token: Annotated[str | None, Query(alias="pageToken")] = None,
    page_size: Annotated[int, Query(alias="pageSize", ge=1, le=2160)] = 100,
    group_by: GroupBy = None,
    network: NetworkQuery = None,
) -> Response:
    _common(group_by, network)
    if time_interval is not None and time_interval not in {i.value for i in Interval}:
        raise bad_request(
            f"timeInterval: must be one of hour, day, week, month (got {time_interval[:80]!r})"
        )
    if start_ts is not None and end_ts is not None and start_ts > end_ts:
        raise bad_request(f"startTimestamp: must be <= endTimestamp ({start_ts} > {end_ts})")
    if page_token:
        raise bad_request("pageToken: unknown page token; start again from the first page")
    return JsonResponse({"results": []})


@router.get(
    "/v2/icm/summary",
    operation_id="getICMSummary",
    responses={200: {"model": ICMRollingWindowMetricsApiResponse}, **ERROR_RESPONSES},
    response_model=None,
)
async def get_icm_summary(
    src: Annotated[str | None, Query(alias="srcBlockchainId")] = None,
    dest: Annotated[str | None, Query(alias="destBlockchainId")] = None,
    group_by: GroupBy = None,
    network: NetworkQuery = None,
) -> Response:
    _common(group_by, network)
    result: dict[str, object] = {w.name: 0 for w in WINDOWS}
    result |= {"srcBlockchainId": src or "", "destBlockchainId": dest or ""}
    return JsonResponse({"result": result})
